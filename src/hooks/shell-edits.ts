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
import { join } from 'node:path';
import { hookPath } from '../api/paths.js';
import type { AgentIdentity, ClientKind } from '../client/agent-identity.js';
import { badAgentReason, refusalReason } from '../core/edits/edit-request.js';
import {
  commandText,
  decideShellLooks,
  headMove,
  headOf,
  namedTrees,
  porcelainPath,
  type ShellLook,
  type TreeLooks,
} from '../core/edits/shell-edits.js';
import { sha256Hex } from '../core/shared/sha256.js';
import { boardForRepo, findWorkTree, otherWorkTrees } from '../state-dir/board-name.js';
import { DaemonBusy, DaemonDown, type HookDaemon, httpDecide } from './daemon.js';
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
 * leaves untracked files out (the look before a command in another work tree: see core/edits/shell-edits.ts).
 */
export function snapshot(root: string, untracked = true): ShellLook | null {
  const r = git(root, [
    'status',
    '--porcelain=v2',
    '-z',
    `--untracked-files=${untracked ? 'all' : 'no'}`,
    '--no-renames',
    '--branch',
    '--no-ahead-behind',
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
  client: ClientKind;
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

/** The daemon's answer to a command hook's shell call (server/http/hooks.ts, `Coord-Answer: verdict`). */
interface DaemonLook {
  /** Whether it kept a look (pre-shell) or compared with one (post-shell). */
  looked: boolean;
  reason: string | null;
}

/**
 * The shell call posted to the daemon, which takes git's looks itself — on its copy of the index, where git keeps
 * its untracked cache (git/look-index.ts), so a look costs about half of this process's own — and keeps the look
 * before for the look after, as it does for a client's own `http` hooks. Null when this process must look itself:
 * no daemon, or an agent name or board that it would refuse in a header (the local path says why).
 */
async function daemonShell(
  event: 'pre-shell' | 'post-shell',
  input: HookInput,
  env: ShellEnv & { identity: AgentIdentity },
  cwd: string,
  deadline?: number,
): Promise<{ status: number; body: DaemonLook } | null> {
  if (badAgentReason(env.identity.agent) || (env.board && !/^[\x21-\x7e]+$/.test(env.board))) return null;
  const headers = { 'coord-agent': env.identity.agent, 'coord-answer': 'verdict' };
  return env
    .daemon()
    .post<DaemonLook>(
      hookPath(env.client, event),
      { ...input, cwd },
      deadline,
      env.board ? { ...headers, 'coord-board': env.board } : headers,
    );
}

/** Before the shell command: remember what git says now, in this work tree and the repository's others. Never blocks. */
export async function preShell(input: HookInput, env: ShellEnv): Promise<Verdict> {
  if (env.mode === 'off' || !env.identity) return { kind: 'allow' };
  const cwd = str(input.cwd) ?? env.cwd;
  const tree = findWorkTree(cwd);
  if (!tree) return { kind: 'allow' };
  // The daemon looks and keeps the look; when it cannot (down, not its user's tree), this process does.
  const asked = await daemonShell('pre-shell', input, { ...env, identity: env.identity }, cwd).catch(() => null);
  if (asked?.status === 200 && asked.body?.looked) return { kind: 'allow' };
  // Untracked files left out, as the daemon's look before does (core/edits/shell-edits.ts): walking every folder
  // for them is a third of a `git status`, and one the command writes is seen after by its ctime.
  const snap = snapshot(tree.root, false);
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
  const cwd = str(input.cwd) ?? env.cwd;
  const tree = findWorkTree(cwd);
  if (!tree) return { kind: 'allow' };
  const before = takeKept(snapshotFile(env.stateDir, env.identity.agent, tree.root, input));
  // No look of this process's own: the daemon kept it (or nobody did, and there is nothing to compare with).
  if (!before) return daemonAfter(input, { ...env, identity: env.identity }, cwd);
  const looks = treeLooks(tree.root, before);
  const agent = env.identity.agent;
  const at = { board: env.board || boardForRepo(tree.home), sessionTree: tree.root, refused: badAgentReason(agent) };
  let line: string | null;
  try {
    line = await decideShellLooks(looks, at, httpDecide(env.daemon(), agent, env.deadline));
  } catch (e) {
    if (e instanceof DaemonBusy) return { kind: 'allow', warning: `coord_busy: ${e.message}; shell edits not checked` };
    if (e instanceof DaemonDown) return { kind: 'allow', warning: `coord: ${e.message}; shell edits not checked` };
    throw e;
  }
  return shellVerdict(env.mode, line);
}

/** The daemon's look after the command, against the one it kept before; its refusal is never read as "down". */
async function daemonAfter(
  input: HookInput,
  env: ShellEnv & { identity: AgentIdentity },
  cwd: string,
): Promise<Verdict> {
  let asked: Awaited<ReturnType<typeof daemonShell>>;
  try {
    asked = await daemonShell('post-shell', input, env, cwd, env.deadline);
  } catch (e) {
    if (e instanceof DaemonBusy) return { kind: 'allow', warning: `coord_busy: ${e.message}; shell edits not checked` };
    if (e instanceof DaemonDown) return { kind: 'allow', warning: `coord: ${e.message}; shell edits not checked` };
    throw e;
  }
  if (!asked) return { kind: 'allow' };
  if (asked.status !== 200) return shellVerdict(env.mode, refusalReason(asked.status, asked.body, 'shell change'));
  return asked.body?.looked ? shellVerdict(env.mode, asked.body.reason) : { kind: 'allow' };
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

/** Each work tree's looks before and after the command (SPEC §14: the work tree of an edit is the path's). */
function treeLooks(sessionRoot: string, before: Kept): TreeLooks[] {
  const looks: TreeLooks[] = [];
  for (const [root, was] of [[sessionRoot, before] as const, ...Object.entries(before.others ?? {})]) {
    const after = snapshot(root);
    if (after) looks.push({ root, before: was, after, committed: headChanges(root, was, after) });
  }
  return looks;
}

function shellVerdict(mode: GuardMode, reason: string | null): Verdict {
  if (reason === null) return { kind: 'allow' };
  return mode === 'warn'
    ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` }
    : { kind: 'continue', reason };
}
