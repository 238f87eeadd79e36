/**
 * Shell edits (SPEC §10 "Shell edits are seen too"): agents change files from
 * their shell tool too (`sed -i`, `>`, generators, `git checkout -- f`), which
 * no edit hook sees. Before a shell tool call (pre-shell) the hook records what
 * git says is changed in the work tree — `git status --porcelain=v2 -z`, plus
 * each listed file's size and mtime; after it (post-shell) it looks again, and
 * every path whose entry appeared, vanished or moved is one the command
 * changed. Those are decided like an edit (decide_edit): a path another agent
 * holds is reported to the model with what to do; free ones are auto-locked.
 * Files git ignores are not coord's. Node built-ins only (a hook).
 */

import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { PATHS } from '../api/paths.js';
import type { AgentIdentity } from '../client/agent-identity.js';
import { badAgentReason, type EditRequest, editRequests, refusalReason } from '../core/edit-request.js';
import { sha256Hex } from '../core/sha256.js';
import {
  commandText,
  decideShellChanges,
  headMove,
  headOf,
  namedTrees,
  porcelainPath,
  type ShellDecision,
  type ShellLook,
  shellChanges,
} from '../core/shell-edits.js';
import { boardForRepo, findWorkTree, otherWorkTrees } from '../state-dir/board-name.js';
import { DaemonBusy, DaemonDown, type HookDaemon } from './daemon.js';
import type { GuardMode, Verdict } from './guard-mode.js';
import { type HookInput, str } from './input.js';

/**
 * node:child_process, loaded when git is run: every hook is one file in dist/hook-bundle/ (scripts/bundle-hooks.mjs),
 * which must not load child_process with an edit's hook whatever form it is bundled in.
 */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');

/**
 * git's view of the work tree's changed files, each with its file times, and HEAD's commit. `untracked: false`
 * leaves untracked files out (the look before a command in another work tree: see core/shell-edits.ts).
 */
export function snapshot(root: string, untracked = true): ShellLook | null {
  const r = git(root, [
    'status',
    '--porcelain=v2',
    '-z',
    `--untracked-files=${untracked ? 'all' : 'no'}`,
    '--no-renames',
    '--branch',
  ]);
  if (r === null) return null;
  const entries: ShellLook['entries'] = {};
  let head: string | undefined;
  for (const entry of r.split('\0')) {
    head ??= headOf(entry) ?? undefined;
    const path = porcelainPath(entry);
    if (path === null) continue;
    entries[path] = stamp(join(root, path), entry.slice(0, 4));
  }
  return { takenAt: Date.now(), untracked, entries, head };
}

function git(root: string, args: string[]): string | null {
  const r = childProcess().spawnSync('git', ['--no-optional-locks', ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 20_000,
  });
  return r.status === 0 ? r.stdout : null;
}

/** The paths HEAD's tree changed between two looks (a command that committed, merged, reset …). */
function headChanges(root: string, before: ShellLook, after: ShellLook): string[] {
  const moved = headMove(before, after);
  if (!moved || moved.to === '(initial)') return [];
  const args =
    moved.from === '(initial)'
      ? ['ls-tree', '-r', '--name-only', '-z', moved.to]
      : ['diff', '--name-only', '-z', '--no-renames', moved.from, moved.to];
  return (git(root, args) ?? '').split('\0').filter((p) => p !== '');
}

function stamp(abs: string, code: string): ShellLook['entries'][string] {
  try {
    const st = lstatSync(abs);
    return { stamp: `${code} ${st.size} ${st.mtimeMs}`, ctimeMs: st.ctimeMs, bornMs: st.birthtimeMs };
  } catch {
    return { stamp: `${code} gone`, ctimeMs: 0, bornMs: 0 };
  }
}

/** One snapshot per shell call (the client's tool_use_id pairs pre with post) or, without one, per agent and tree. */
function snapshotFile(stateDir: string, agent: string, root: string, input: HookInput): string {
  const call = str(input.tool_use_id) ?? str(input.toolUseId) ?? '';
  const id = sha256Hex(`${agent}\n${root}\n${call}`).slice(0, 16);
  return join(stateDir, 'hooks', `shell-${id}.json`);
}

export interface ShellEnv {
  mode: GuardMode;
  cwd: string;
  stateDir: string;
  identity: AgentIdentity | null;
  daemon: () => HookDaemon;
  /** COORD_BOARD, when the session's board is fixed. */
  board?: string | undefined;
  /** When the client's hook times out (epoch ms less a margin): a busy daemon is waited for until then. */
  deadline: number;
}

/** What pre-shell keeps for post-shell: the session's work tree's look, and the other work trees' (tracked only). */
interface Kept extends ShellLook {
  others?: Record<string, ShellLook>;
}

/** Before the shell command: remember what git says now, in this work tree and the repository's others. Never blocks. */
export function preShell(input: HookInput, env: ShellEnv): Verdict {
  if (env.mode === 'off' || !env.identity) return { kind: 'allow' };
  const tree = findWorkTree(str(input.cwd) ?? env.cwd);
  if (!tree) return { kind: 'allow' };
  const snap = snapshot(tree.root);
  if (!snap) return { kind: 'allow' };
  const others: Record<string, ShellLook> = {};
  // Another work tree is looked at when the command names it (its folder's name): its own agents' edits meanwhile
  // are theirs, and a command that names no other tree pays for no other look. No command text: every tree.
  for (const root of namedTrees(commandText(input), otherWorkTrees(tree))) {
    const look = snapshot(root, false);
    if (look) others[root] = look;
  }
  const kept: Kept = { ...snap, others };
  const file = snapshotFile(env.stateDir, env.identity.agent, tree.root, input);
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(kept), { mode: 0o600 });
  renameSync(tmp, file);
  return { kind: 'allow' };
}

/** After it: the paths it changed, decided; a held one is reported to the model with how to undo it. */
export async function postShell(input: HookInput, env: ShellEnv): Promise<Verdict> {
  if (env.mode === 'off' || !env.identity) return { kind: 'allow' };
  const tree = findWorkTree(str(input.cwd) ?? env.cwd);
  if (!tree) return { kind: 'allow' };
  const before = takeKept(snapshotFile(env.stateDir, env.identity.agent, tree.root, input));
  if (!before) return { kind: 'allow' }; // no pre-shell look: nothing to compare with
  const changed = changedTrees(tree.root, before, env.board || boardForRepo(tree.home));
  if (changed.every((c) => c.requests.length === 0)) return { kind: 'allow' };
  const agent = env.identity.agent;
  let lines: string[];
  try {
    lines = await refusedLines(changed, tree.root, agent, env.daemon(), env.deadline);
  } catch (e) {
    if (e instanceof DaemonBusy) return { kind: 'allow', warning: `coord_busy: ${e.message}; shell edits not checked` };
    if (e instanceof DaemonDown) return { kind: 'allow', warning: `coord: ${e.message}; shell edits not checked` };
    throw e;
  }
  return shellVerdict(env.mode, lines);
}

/** What the daemon says of each tree's changes: a line for each refused (a name it would refuse, for all). */
async function refusedLines(
  changed: ReturnType<typeof changedTrees>,
  sessionRoot: string,
  agent: string,
  daemon: HookDaemon,
  deadline: number,
): Promise<string[]> {
  const badName = badAgentReason(agent);
  const lines: string[] = [];
  for (const c of changed) {
    if (c.requests.length === 0) continue;
    const where = c.root === sessionRoot ? undefined : relative(sessionRoot, c.root);
    const line = badName
      ? badName
      : await decideShellChanges(
          c.requests,
          (r) => decide(daemon, { agent, ...r }, deadline),
          c.before,
          c.after,
          where,
        );
    if (line) lines.push(line);
  }
  return lines;
}

/** What pre-shell kept for this call, read once and removed; null when it kept nothing. */
function takeKept(file: string): Kept | null {
  let kept: Kept;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8')) as Kept;
  } catch {
    return null;
  }
  rmSync(file, { force: true });
  return kept;
}

/** Each work tree's changes, as edits of that tree (SPEC §14: the work tree of an edit is the path's). */
function changedTrees(sessionRoot: string, before: Kept, board: string) {
  const looks: { root: string; before: ShellLook; after: ShellLook }[] = [];
  for (const [root, was] of [[sessionRoot, before] as const, ...Object.entries(before.others ?? {})]) {
    const after = snapshot(root);
    if (after) looks.push({ root, before: was, after });
  }
  return looks.map((l) => ({
    ...l,
    requests: editRequests(
      shellChanges(l.before, l.after, headChanges(l.root, l.before, l.after)).map((key) => ({
        board,
        tree: l.root,
        key,
      })),
      sessionRoot,
    ),
  }));
}

function shellVerdict(mode: GuardMode, lines: string[]): Verdict {
  if (lines.length === 0) return { kind: 'allow' };
  const reason = [...new Set(lines)].join('\n');
  return mode === 'warn'
    ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` }
    : { kind: 'continue', reason };
}

/** One request; a daemon that answers anything but a decision refuses it (SPEC §10: never read as "down"). */
async function decide(
  daemon: HookDaemon,
  body: { agent: string } & EditRequest,
  deadline: number,
): Promise<ShellDecision> {
  const answer = await daemon.post<ShellDecision | null>(PATHS.decideEdit, body, deadline);
  if (answer.status === 200 && answer.body?.decision) return answer.body;
  return { decision: 'deny', reason: refusalReason(answer.status, answer.body), conflicts: [] };
}
