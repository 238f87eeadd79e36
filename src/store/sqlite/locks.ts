/**
 * File locks (SPEC rule 11): try-locks, all-or-nothing, inside one BEGIN
 * IMMEDIATE transaction — so the conflict check and the insert see the same
 * table and two callers can never both win an overlapping key. Liveness is a
 * predicate (lease, or the claim a lock is bound to), never a background job.
 */

import type { Overlap } from '../../core/edits/edit-decision.js';
import { overlapProbe } from '../../core/edits/paths.js';
import type { Lock } from '../../core/model.js';
import type { AcquireLocksCommand, LockConflict, Outcome } from '../../core/ports.js';
import { heldTask, type SessionClaim } from '../shared/held-task.js';
import { type ConflictRow, conflictsOf, overlapsOf } from '../shared/lock-conflicts.js';
import { type LockBound, type LockRow, lockOf, lockValues, releasedEvent, renewed } from '../shared/lock-rows.js';
import { acquiredLock } from '../shared/new-event.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

/** A plain lock lives by its lease; a claim's lock lives exactly as long as the claim. */
const LOCK_LIVE = `((l.claim_id IS NULL AND l.lease_until > @now)
  OR (l.claim_id IS NOT NULL AND t.state = 'claimed' AND t.claim_id = l.claim_id AND t.lease_until > @now))`;
/** A change hold (SPEC §14) lives until its paths are no longer pending: only a git check ends it. */
const LIVE = `(l.held_since IS NOT NULL OR ${LOCK_LIVE})`;
const LEASE =
  'CASE WHEN l.held_since IS NOT NULL THEN l.held_since WHEN l.claim_id IS NULL THEN l.lease_until ELSE t.lease_until END';
/**
 * What conflicts with a caller working in @worktree (core/worktrees/holds.ts says the same in words): a live lock of
 * anyone, and — from another work tree only — a hold, or a lock from a work tree that ended without being
 * swept into a hold yet (so there is no instant at which neither guards the path).
 */
const CONFLICTING = `((l.held_since IS NULL AND ${LOCK_LIVE})
  OR (l.worktree IS NOT NULL AND (@worktree IS NULL OR l.worktree <> @worktree)))`;
// Equality probes for every place enclosing the key, a range for everything inside it
// (core/edits/paths.ts overlapProbe). Both are primary-key lookups, never a scan of the table.
export const CONFLICTS = `WITH hits AS (
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource IN (SELECT value FROM json_each(@exact))
    UNION
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource >= @lo AND resource < @hi)
  SELECT hits.resource AS held, l.lock_id, l.agent AS holder, ${LEASE} AS lease_until,
         l.worktree, l.held_since, COALESCE(l.task_id, l.hold_task) AS task_id,
         (l.claim_id IS NULL AND l.held_since IS NULL) AS plain
  FROM hits JOIN locks l ON l.lock_id = hits.lock_id LEFT JOIN tasks t ON t.id = l.task_id
  WHERE ${CONFLICTING} ORDER BY hits.resource, l.lock_id`;

/**
 * Every live lock overlapping any of `keys` — each requested key with each held key it meets — and every
 * change hold of a work tree other than `worktree` (SPEC §14): the one conflict check, for locks, claims
 * with files and the edit decision alike.
 */
export function findOverlaps(
  db: Db,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): Overlap[] {
  return keys.flatMap((resource) => {
    const probe = overlapProbe(resource);
    const hits = stmt(db, CONFLICTS).all({
      board,
      now,
      worktree,
      exact: JSON.stringify(probe.exact),
      lo: probe.lo,
      hi: probe.hi,
    }) as ConflictRow[];
    return overlapsOf(resource, hits, now);
  });
}

/** The overlaps as a lock_conflict lists them (a work tree's lock or hold says which, SPEC §14). */
export const findConflicts = (
  db: Db,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): LockConflict[] => conflictsOf(findOverlaps(db, now, board, keys, worktree));

export const resourcesOf = (db: Db, lockId: string): string[] =>
  (
    stmt(db, 'SELECT resource FROM lock_resources WHERE lock_id = ? ORDER BY resource').all(lockId) as {
      resource: string;
    }[]
  ).map((r) => r.resource);

/**
 * Ends one lock and records why, in the caller's transaction. A lock taken from a work tree is not deleted
 * unless `final` (a person's --force, a hold whose paths are no longer pending): it ends — no longer live,
 * still guarding its paths from other work trees — and waits for coord to ask git which of its keys are
 * pending there (`settleEnded`): those become a change hold (SPEC §14) of `task` when given, else of the task
 * it was bound to; the rest end for `reason`. Anything else is deleted (its keys cascade).
 */
export function free(
  tx: Tx,
  lockId: string,
  reason: string,
  opts: { final?: boolean; task?: string | null } = {},
): boolean {
  if (!opts.final) {
    const ended = stmt(
      tx.db,
      `UPDATE locks SET lease_until = MIN(lease_until, @now), ended_for = @reason,
              hold_task = COALESCE(@task, task_id, hold_task), task_id = NULL, claim_id = NULL, session_id = NULL
       WHERE lock_id = @lock_id AND worktree IS NOT NULL AND held_since IS NULL AND ended_for IS NULL
       RETURNING lock_id`,
    ).get({ lock_id: lockId, now: tx.now, reason, task: opts.task ?? null });
    if (ended) {
      tx.endedLocks = (tx.endedLocks ?? 0) + 1;
      return true;
    }
    // Already a hold, or ended and waiting for git: only a final end takes it away.
    if (stmt(tx.db, 'SELECT 1 FROM locks WHERE lock_id = ? AND worktree IS NOT NULL').get(lockId)) return false;
  }
  const resources = resourcesOf(tx.db, lockId);
  const row = stmt(tx.db, 'DELETE FROM locks WHERE lock_id = ? RETURNING *').get(lockId) as LockRow | undefined;
  if (!row) return false;
  appendEvent(tx, releasedEvent(row, resources, reason));
  return true;
}

// An ended work-tree lock waits for git (settleEnded), not for the sweep.
const LAPSED = 'SELECT lock_id FROM locks WHERE claim_id IS NULL AND lease_until <= @now AND ended_for IS NULL';

/** Read-only probe: is any plain lock's lease over (so a sweep has something to delete)? */
export const anyLockLapsed = (db: Db, now: number): boolean =>
  (stmt(db, `SELECT EXISTS (${LAPSED}) AS due`).get({ now }) as { due: number }).due === 1;

/** Lazy cleanup: lapsed plain locks already stopped conflicting; here they leave the table. */
export function freeLapsedLocks(tx: Tx): number {
  const due = stmt(tx.db, LAPSED).all({ now: tx.now }) as { lock_id: string }[];
  for (const d of due) free(tx, d.lock_id, 'lease_lapsed');
  return due.length;
}

/** Inserts a lock after a conflict check in the same transaction: every key or none. */
export function insertLock(tx: Tx, cmd: AcquireLocksCommand, bound: LockBound): Outcome<{ lock: Lock }> {
  // Lapsed locks no longer conflict; free them first so the event log never shows an acquisition over a lock
  // it has not released yet (a claim with files comes here directly, not through acquireLocks).
  freeLapsedLocks(tx);
  const conflicts = findConflicts(tx.db, tx.now, cmd.board, cmd.resources, cmd.worktree);
  if (conflicts.length > 0) return { ok: false, reason: 'lock_conflict', conflicts };
  return { ok: true, lock: writeLock(tx, cmd, bound) };
}

/** Inserts a lock whose keys the caller has just checked, in its transaction, with its event. */
export function writeLock(tx: Tx, cmd: AcquireLocksCommand, bound: LockBound): Lock {
  const values = lockValues(cmd, bound, tx.now);
  stmt(
    tx.db,
    `INSERT INTO locks (lock_id, board, agent, lease_until, lease_ms, task_id, claim_id, session_id, created_at, worktree)
     VALUES (@lock_id, @board, @agent, @lease_until, @lease_ms, @task_id, @claim_id, @session_id, @now, @worktree)`,
  ).run(values);
  // Sorted order (rule 11): harmless here under SQLite's single writer, essential for row locks elsewhere.
  const add = stmt(tx.db, 'INSERT INTO lock_resources (board, resource, lock_id) VALUES (?, ?, ?)');
  for (const r of cmd.resources) add.run(cmd.board, r, cmd.lock_id);
  const { lock, event } = acquiredLock(cmd, values.lease_until, values.task_id, tx.now);
  appendEvent(tx, event);
  return lock;
}

export const acquireLocks = (tx: Tx, cmd: AcquireLocksCommand): Outcome<{ lock: Lock }> => insertLock(tx, cmd, null);

export function renewLock(tx: Tx, lockId: string, leaseMs: number | null): Outcome<{ lease_until: string }> {
  const row = stmt(
    tx.db,
    `UPDATE locks SET lease_until = @now + COALESCE(@lease_ms, lease_ms)
     WHERE lock_id = @lock_id AND claim_id IS NULL AND held_since IS NULL AND lease_until > @now
     RETURNING lease_until`,
  ).get({ lock_id: lockId, lease_ms: leaseMs, now: tx.now }) as { lease_until: number } | undefined;
  return renewed(row?.lease_until, row ? undefined : liveLocks(tx.db, tx.now, { lock_id: lockId })[0]);
}

export const releaseLock = (tx: Tx, lockId: string): boolean => free(tx, lockId, 'released');

/** Runs inside the transaction that ends a claim (SqliteStore.claimEnded): its files go with it. */
export function freeClaimLocks(tx: Tx, claimId: string | null): void {
  if (claimId === null) return;
  const rows = stmt(tx.db, 'SELECT lock_id FROM locks WHERE claim_id = ?').all(claimId) as { lock_id: string }[];
  for (const r of rows) free(tx, r.lock_id, 'claim_ended');
}

/** `claims`: the session's claims as they were, so a plain lock's hold names the task its agent held. */
export function freeSessionLocks(tx: Tx, sessionId: string, claims: SessionClaim[] = []): string[] {
  const rows = stmt(tx.db, 'SELECT lock_id, agent, worktree FROM locks WHERE session_id = ? ORDER BY lock_id').all(
    sessionId,
  ) as { lock_id: string; agent: string; worktree: string | null }[];
  return rows.filter((r) => free(tx, r.lock_id, 'session_ended', { task: heldTask(r, claims) })).map((r) => r.lock_id);
}

/** Live locks, oldest first; a read that never writes. */
export function liveLocks(db: Db, now: number, q: { board?: string | undefined; lock_id?: string }): Lock[] {
  // One statement per filter, so each is an index lookup rather than an `@x IS NULL OR` scan.
  const [where, key] =
    q.lock_id !== undefined
      ? ['l.lock_id = @key', q.lock_id]
      : q.board !== undefined
        ? ['l.board = @key', q.board]
        : ['@key IS NULL', null];
  const rows = stmt(
    db,
    `SELECT l.lock_id, l.board, l.agent, COALESCE(l.task_id, l.hold_task) AS task_id, l.created_at,
            ${LEASE} AS lease_until, l.worktree, l.held_since
     FROM locks l LEFT JOIN tasks t ON t.id = l.task_id
     WHERE ${where} AND ${LIVE} ORDER BY l.created_at, l.lock_id`,
  ).all({ key, now }) as LockRow[];
  return rows.map((r) => lockOf(r, resourcesOf(db, r.lock_id)));
}

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export const claimLock = (db: Db, now: number, claimId: string): Lock | undefined => {
  const row = stmt(db, 'SELECT lock_id FROM locks WHERE claim_id = ?').get(claimId) as { lock_id: string } | undefined;
  return row ? liveLocks(db, now, { lock_id: row.lock_id })[0] : undefined;
};
