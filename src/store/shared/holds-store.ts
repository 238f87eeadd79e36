/**
 * Change holds (SPEC §14) of both stores: a work tree's lock that ended waits for git, then holds the keys still
 * pending there until they are merged or the tree is gone. Rows of the locks table, so the one conflict check
 * (locks-store.ts) sees them. Programs (program.ts) over locks-sql.ts.
 */
import type { EndedLock } from '../../core/worktrees/worktree-ports.js';
import { endedFor, heldEvent, type LockRow, touches } from './lock-rows.js';
import type { LocksSql } from './locks-sql.js';
import { free, keysOf } from './locks-store.js';
import { all, emit, get, type Prog, type Q, run } from './program.js';

type W = Q<LocksSql>;

/** The board's (or every board's) ended work-tree locks waiting for git to say what is pending. */
export function* endedLocks(sql: LocksSql, now: number | null, board: string | null): Prog<EndedLock[]> {
  const found = yield* all<Omit<EndedLock, 'resources'> & { resources: string[] | null }>(sql.ended, { now, board });
  const out: EndedLock[] = [];
  for (const r of found) out.push({ ...r, resources: yield* keysOf(sql, r) });
  return out;
}

/**
 * An ended work-tree lock becomes a change hold of the keys git says are pending (`keep`), or, with none,
 * ends for the reason it ended (SPEC §14: only pending paths are held).
 */
function* settleEnded(q: W, lockId: string, keep: string[]): Prog<boolean> {
  const r = yield* get<{ ended_for: string | null }>(q.sql.endedOne, { lock_id: lockId, now: q.now });
  if (!r) return false;
  const why = endedFor(r);
  if (keep.length === 0) return (yield* free(q, { by: 'lock', lock_id: lockId }, why, { final: true })).length > 0;
  yield* run(q.sql.dropKeys, { lock_id: lockId, keep });
  const held = yield* get<LockRow & { resources: string[] | null }>(q.sql.hold, { lock_id: lockId, now: q.now });
  if (held) yield* emit(heldEvent(held, yield* keysOf(q.sql, held), why));
  return true;
}

/** A person ends a lock or a hold at once (`coord unlock --force`): never becomes a hold. */
export function* forceReleaseLock(q: W, lockId: string): Prog<boolean> {
  return (yield* free(q, { by: 'lock', lock_id: lockId }, 'forced', { final: true })).length > 0;
}

/**
 * A hold keeps only the keys still pending in its work tree (SPEC §14); with none left it ends. `reason`
 * says why (merged, worktree_gone). An ended lock waiting for git is settled here too (`settleEnded`).
 */
export function* trimHold(q: W, lockId: string, keep: string[], reason: string): Prog<boolean> {
  const hold = yield* get(q.sql.isHold, { lock_id: lockId });
  if (!hold) return yield* settleEnded(q, lockId, keep);
  if (keep.length === 0) return (yield* free(q, { by: 'hold', lock_id: lockId }, reason, { final: true })).length > 0;
  return (yield* all(q.sql.trimKeys, { lock_id: lockId, keep })).length > 0;
}

/**
 * SPEC §14, at a submit: the agent's own plain locks from this work tree on paths the change touched become
 * holds of the task at once (its claim's locks follow the claim, in locks-store.ts freeClaimLocks).
 */
export function* holdAtSubmit(
  q: W,
  c: { board: string; agent: string; worktree: string; task_id: string; paths: string[] },
): Prog<void> {
  const mine = yield* all<{ lock_id: string; resources: string[] | null }>(q.sql.mine, c);
  for (const m of mine) {
    if (touches(yield* keysOf(q.sql, m), c.paths)) {
      yield* free(q, { by: 'lock', lock_id: m.lock_id }, 'submitted', { task: c.task_id });
    }
  }
}
