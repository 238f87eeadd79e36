/**
 * The git guard (SPEC §10): `coord guard install` puts a pre-commit hook in
 * the repository's common hooks directory (shared by its work trees) that
 * runs this. A commit staging a path another agent holds is refused with the
 * `lock_conflict` lines; `COORD_GUARD=warn` only warns, `off` skips it.
 */
import { createRequire } from 'node:module';
import { PATHS, withQuery } from '../api/paths.js';
import { CLIENT_KINDS, identify } from '../client/agent-identity.js';
import { editKey, refusalReason } from '../core/edits/edit-request.js';
import { overlaps } from '../core/edits/paths.js';
import { conflictLine } from '../core/worktrees/holds.js';
import { findRepoRoot, foldsCase } from '../state-dir/board-name.js';
import { resolveAgent, resolveBoard } from '../state-dir/who.js';
import { DaemonDown, type HookDaemon, query } from './daemon.js';
import type { GuardMode } from './guard-mode.js';
import { conflictReason } from './pre-edit.js';

/**
 * node:child_process, loaded when git is run: every hook is one file in dist/hook-bundle/ (scripts/bundle-hooks.mjs),
 * which must not load child_process with an edit's hook whatever form it is bundled in.
 */
const childProcess = (): typeof import('node:child_process') =>
  createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');

export interface CommitCheck {
  code: number;
  message: string;
}

interface LiveLock {
  agent: string;
  resources: string[];
  lease_until: string;
  task_id: string | null;
  worktree?: string | null;
  hold?: { since: string } | null;
}

export async function preCommit(
  env: NodeJS.ProcessEnv,
  mode: GuardMode,
  daemon: () => HookDaemon,
): Promise<CommitCheck> {
  if (mode === 'off') return { code: 0, message: '' };
  const cwd = process.cwd();
  const root = findRepoRoot(cwd) ?? cwd;
  const keys = stagedKeys(root);
  if (keys.length === 0) return { code: 0, message: '' };
  const board = resolveBoard(undefined, env, root);
  const me = committers(env);
  let locks: LiveLock[];
  try {
    const answer = await daemon().get<{ locks: LiveLock[] }>(withQuery(PATHS.locks, query({ board })));
    // A live daemon's answer is never "down" (SPEC §10): one that refuses the look refuses the commit.
    if (answer.status !== 200 || !Array.isArray(answer.body?.locks))
      return refuse(mode, refusalReason(answer.status, answer.body, 'commit'));
    locks = answer.body.locks;
  } catch (e) {
    if (!(e instanceof DaemonDown)) throw e;
    return mode === 'strict'
      ? { code: 1, message: `coord guard: ${e.message} — COORD_GUARD=strict refuses the commit` }
      : { code: 0, message: `coord guard: ${e.message}; commit not checked for locks` };
  }
  // SPEC §14: a change hold of this same work tree never blocks (the commit continues its branch).
  const blocking = (l: LiveLock) => (l.hold ? l.worktree !== root : !me.has(l.agent));
  const conflicts = keys.flatMap((resource) =>
    locks.flatMap((l) =>
      !blocking(l)
        ? []
        : l.resources
            .filter((held) => overlaps(resource, held))
            .map((held) => ({
              resource,
              held,
              holder: l.agent,
              lock_id: '',
              lease_until: l.lease_until,
              task_id: l.task_id,
              worktree: l.worktree ?? null,
              hold: Boolean(l.hold),
            })),
    ),
  );
  if (conflicts.length === 0) return { code: 0, message: '' };
  const reason = !conflicts.some((c) => c.hold)
    ? conflictReason(conflicts)
    : `lock_conflict: ${[...new Set(conflicts.map((c) => conflictLine(c, root)))].join('; ')} — do not work around it; ask that agent (coord who) or wait until it is merged (coord changes)`;
  return refuse(mode, reason);
}

/** The staged paths as lock keys (folded where the file system folds case). */
function stagedKeys(root: string): string[] {
  // --no-renames: a rename is its source deleted and its destination added, and both must be free —
  // with rename detection `git mv locked.ts x.ts` listed only x.ts and committed the locked file away.
  const staged = childProcess().spawnSync('git', ['diff', '--cached', '--name-only', '--no-renames', '-z'], {
    cwd: root,
    encoding: 'utf8',
  });
  const fold = foldsCase(root);
  return (
    (staged.stdout ?? '')
      .split('\0')
      .filter(Boolean)
      // A path too long for a key is checked as its deepest folder that fits (a lock on lib/ still covers it).
      .flatMap((p) => editKey(fold ? p.toLowerCase() : p) ?? [])
  );
}

/** The committer is whichever agent's shell ran git (or a human, who holds no agent's name). */
function committers(env: NodeJS.ProcessEnv): Set<string> {
  const named = resolveAgent({ env });
  const me = new Set<string>(named ? [named] : []);
  for (const kind of CLIENT_KINDS) {
    const id = identify(kind, env, { skip: ['git'] });
    if (id) me.add(id.agent);
  }
  return me;
}

function refuse(mode: GuardMode, reason: string): CommitCheck {
  if (mode === 'warn') return { code: 0, message: `coord guard (COORD_GUARD=warn): ${reason}` };
  return {
    code: 1,
    message: `coord guard: commit refused — ${reason}\n(COORD_GUARD=warn git commit … to commit anyway)`,
  };
}
