/**
 * File locks (SPEC rule 11) of both stores: try-locks, all-or-nothing, the conflict check and the insert in
 * one transaction (SQLite: its one writer; PostgreSQL: under READ COMMITTED two daemons could each check "no
 * overlap" and both insert — `src/` and `src/a.ts` share no unique key — so it runs under a per-board advisory
 * lock held until COMMIT, `lockBoard`). Liveness is a predicate (lease, or the claim a lock is bound to), never
 * a background job. Programs (program.ts) over locks-sql.ts; a lock ends only through the store's `free`.
 */
import type { Overlap } from '../../core/edits/edit-decision.js';
import { overlapProbe } from '../../core/edits/paths.js';
import type { Lock } from '../../core/model.js';
import type { AcquireLocksCommand, LockConflict, Outcome } from '../../core/ports.js';
import { heldTask, type SessionClaim } from './held-task.js';
import { type ConflictRow, conflictsOf, overlapsOf } from './lock-conflicts.js';
import { type LockBound, type LockRow, lockOf, lockValues, renewed } from './lock-rows.js';
import type { LocksSql, LockTarget } from './locks-sql.js';
import { acquiredLock } from './new-event.js';
import { all, call, emit, get, type Prog, type Q, run } from './program.js';

type W = Q<LocksSql>;

/**
 * Every live lock overlapping any of `keys` — each requested key with each held key it meets — and every
 * change hold of a work tree other than `worktree` (SPEC §14): the one conflict check, for locks, claims
 * with files and the edit decision alike.
 */
export function* findOverlaps(
  sql: LocksSql,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): Prog<Overlap[]> {
  const out: Overlap[] = [];
  for (const resource of keys) {
    const hits = yield* all<ConflictRow>(sql.conflicts, { board, now, worktree, ...overlapProbe(resource) });
    out.push(...overlapsOf(resource, hits, now));
  }
  return out;
}

/** The overlaps as a lock_conflict lists them (a work tree's lock or hold says which, SPEC §14). */
const findConflicts = function* (q: W, board: string, keys: string[], worktree: string | null): Prog<LockConflict[]> {
  return conflictsOf(yield* findOverlaps(q.sql, q.now, board, keys, worktree));
};

/** A lock's keys, sorted: from its row when the store lists them there, else read. */
export function* keysOf(sql: LocksSql, r: { lock_id: string; resources: string[] | null }): Prog<string[]> {
  if (r.resources !== null) return r.resources;
  const found = yield* all<{ resource: string }>(sql.resourcesOf, { lock_id: r.lock_id });
  return found.map((k) => k.resource);
}

/** Ends the locks `target` names for `reason` (the store's `free`): the ids it ended. */
export const free = (q: W, target: LockTarget, reason: string, opts: { final?: boolean; task?: string | null } = {}) =>
  call(q.sql.free, target, reason, opts);

/** Lazy cleanup: lapsed plain locks already stopped conflicting; here they leave the table. */
export function* freeLapsedLocks(q: W): Prog<number> {
  return (yield* free(q, { by: 'lapsed' }, 'lease_lapsed')).length;
}

/** Inserts a lock after a conflict check in the same transaction (and under the board's lock): every key or none. */
export function* insertLock(q: W, cmd: AcquireLocksCommand, bound: LockBound): Prog<Outcome<{ lock: Lock }>> {
  yield* run(q.sql.lockBoard, { board: cmd.board });
  // Lapsed locks no longer conflict; free them first so the event log never shows an acquisition over a lock
  // it has not released yet (a claim with files comes here directly, not through acquireLocks).
  yield* freeLapsedLocks(q);
  const conflicts = yield* findConflicts(q, cmd.board, cmd.resources, cmd.worktree);
  if (conflicts.length > 0) return { ok: false, reason: 'lock_conflict', conflicts };
  return { ok: true, lock: yield* writeLock(q, cmd, bound) };
}

/** Inserts a lock whose keys the caller has just checked, in its transaction, with its event. */
export function* writeLock(q: W, cmd: AcquireLocksCommand, bound: LockBound): Prog<Lock> {
  const values = lockValues(cmd, bound, q.now);
  yield* run(q.sql.insertLock, values);
  // Sorted order (rule 11): harmless under SQLite's single writer, essential for row locks elsewhere.
  if (q.sql.addResource !== '') {
    for (const resource of cmd.resources) {
      yield* run(q.sql.addResource, { board: cmd.board, resource, lock_id: cmd.lock_id });
    }
  }
  const { lock, event } = acquiredLock(cmd, values.lease_until, values.task_id, q.now);
  yield* emit(event);
  return lock;
}

export const acquireLocks = (q: W, cmd: AcquireLocksCommand): Prog<Outcome<{ lock: Lock }>> => insertLock(q, cmd, null);

export function* renewLock(q: W, lockId: string, leaseMs: number | null): Prog<Outcome<{ lease_until: string }>> {
  const r = yield* get<{ lease_until: number }>(q.sql.renew, { lock_id: lockId, lease_ms: leaseMs, now: q.now });
  return renewed(r?.lease_until, r ? undefined : (yield* liveLocks(q.sql, q.now, { lock_id: lockId }))[0]);
}

export function* releaseLock(q: W, lockId: string): Prog<boolean> {
  return (yield* free(q, { by: 'lock', lock_id: lockId }, 'released')).length > 0;
}

/** Runs inside the transaction that ends a claim (rule 10; every program that ends one): its files go with it. */
export function* freeClaimLocks(q: W, claimId: string | null): Prog<void> {
  if (claimId !== null) yield* free(q, { by: 'claim', claim_id: claimId }, 'claim_ended');
}

/**
 * Rule 13: the plain locks of a session that ended, freed in its transaction. `claims`: the session's claims as
 * they were, so a work tree's lock becomes a hold of the task its agent held (held-task.ts).
 */
export function* freeSessionLocks(q: W, sessionId: string, claims: SessionClaim[]): Prog<string[]> {
  const mine = yield* all<{ lock_id: string; agent: string; worktree: string | null }>(q.sql.bySession, {
    session_id: sessionId,
  });
  const byTask = new Map<string | null, string[]>();
  for (const l of mine) {
    const task = heldTask(l, claims);
    byTask.set(task, [...(byTask.get(task) ?? []), l.lock_id]);
  }
  const freed: string[] = [];
  for (const [task, ids] of byTask) freed.push(...(yield* free(q, { by: 'ids', ids }, 'session_ended', { task })));
  return freed;
}

/** Live locks, oldest first; a read that never writes. */
export function* liveLocks(
  sql: LocksSql,
  now: number,
  q: { board?: string | undefined; lock_id?: string },
): Prog<Lock[]> {
  const [text, key] =
    q.lock_id !== undefined
      ? [sql.live.lock, q.lock_id]
      : q.board !== undefined
        ? [sql.live.board, q.board]
        : [sql.live.all, null];
  const found = yield* all<LockRow & { resources: string[] | null }>(text, { key, now });
  const out: Lock[] = [];
  for (const r of found) out.push(lockOf(r, yield* keysOf(sql, r)));
  return out;
}

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export function* claimLock(sql: LocksSql, now: number, claimId: string): Prog<Lock | undefined> {
  const r = yield* get<{ lock_id: string }>(sql.byClaim, { claim_id: claimId });
  return r ? (yield* liveLocks(sql, now, { lock_id: r.lock_id }))[0] : undefined;
}
