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
import { PATHS } from '../api/paths.js';
import type { AgentIdentity } from '../client/agent-identity.js';
import type { ConflictLine } from '../core/edit-decision.js';
import { normaliseResource } from '../core/paths.js';
import { sha256Hex } from '../core/sha256.js';
import { porcelainPath, type ShellLook, shellChanges, shellConflictReason } from '../core/shell-edits.js';
import { boardForRepo, findWorkTree } from '../state-dir/board-name.js';
import { DaemonBusy, DaemonDown, type HookDaemon } from './daemon.js';
import type { GuardMode, Verdict } from './guard-mode.js';
import { type HookInput, str } from './input.js';

/**
 * node:child_process, loaded when git is run: every hook is one file in dist/hook-bundle/ (scripts/bundle-hooks.mjs),
 * which must not load child_process with an edit's hook whatever form it is bundled in.
 */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');

/** git's view of the work tree's changed files (tracked and untracked, not ignored), each with its file times. */
export function snapshot(root: string): ShellLook | null {
  const r = childProcess().spawnSync(
    'git',
    ['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 20_000,
    },
  );
  if (r.status !== 0) return null;
  const entries: ShellLook['entries'] = {};
  for (const entry of r.stdout.split('\0')) {
    const path = porcelainPath(entry);
    if (path === null) continue;
    entries[path] = stamp(join(root, path), entry.slice(0, 4));
  }
  return { takenAt: Date.now(), untracked: true, entries };
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

/** Before the shell command: remember what git says now. Never blocks. */
export function preShell(input: HookInput, env: ShellEnv): Verdict {
  if (env.mode === 'off' || !env.identity) return { kind: 'allow' };
  const tree = findWorkTree(str(input.cwd) ?? env.cwd);
  if (!tree) return { kind: 'allow' };
  const snap = snapshot(tree.root);
  if (!snap) return { kind: 'allow' };
  const file = snapshotFile(env.stateDir, env.identity.agent, tree.root, input);
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(snap), { mode: 0o600 });
  renameSync(tmp, file);
  return { kind: 'allow' };
}

interface Decision {
  decision: 'allow' | 'deny';
  conflicts: ConflictLine[];
}

/** After it: the paths it changed, decided; a held one is reported to the model with how to undo it. */
export async function postShell(input: HookInput, env: ShellEnv): Promise<Verdict> {
  if (env.mode === 'off' || !env.identity) return { kind: 'allow' };
  const tree = findWorkTree(str(input.cwd) ?? env.cwd);
  if (!tree) return { kind: 'allow' };
  const file = snapshotFile(env.stateDir, env.identity.agent, tree.root, input);
  let before: ShellLook;
  try {
    before = JSON.parse(readFileSync(file, 'utf8')) as ShellLook;
  } catch {
    return { kind: 'allow' }; // no pre-shell look: nothing to compare with
  }
  rmSync(file, { force: true });
  const after = snapshot(tree.root);
  if (!after) return { kind: 'allow' };
  const keys = shellChanges(before, after).flatMap((p) => {
    const k = normaliseResource(p);
    return k.ok ? [k.key] : [];
  });
  if (keys.length === 0) return { kind: 'allow' };
  const body = {
    agent: env.identity.agent,
    board: env.board || boardForRepo(tree.home),
    worktree: tree.root,
  };
  try {
    const daemon = env.daemon();
    const first = await decide(daemon, { ...body, paths: keys }, env.deadline);
    if (first.decision === 'allow') return { kind: 'allow' };
    const held = new Set(first.conflicts.map((c) => c.resource));
    const free = keys.filter((k) => !held.has(k));
    // The free ones are this agent's now, as if it had edited them with its edit tool.
    if (free.length > 0) await decide(daemon, { ...body, paths: free }, env.deadline);
    const reason = shellConflictReason(first.conflicts, before, after);
    return env.mode === 'warn'
      ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` }
      : { kind: 'continue', reason };
  } catch (e) {
    if (e instanceof DaemonBusy) return { kind: 'allow', warning: `coord_busy: ${e.message}; shell edits not checked` };
    if (e instanceof DaemonDown) return { kind: 'allow', warning: `coord: ${e.message}; shell edits not checked` };
    throw e;
  }
}

async function decide(
  daemon: HookDaemon,
  body: { agent: string; board: string; worktree: string; paths: string[] },
  deadline: number,
): Promise<Decision> {
  const answer = await daemon.post<Decision & { error?: { code?: string } }>(PATHS.decideEdit, body, deadline);
  if (answer.status === 200 && answer.body) return answer.body;
  throw new DaemonDown(`the coord daemon refused the decision: ${answer.body?.error?.code ?? `HTTP ${answer.status}`}`);
}
