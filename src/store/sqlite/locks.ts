/**
 * File locks and change holds (SPEC rule 11, §14) in SQLite: the statements of store/shared/locks-sql.ts with
 * SQLite's own (lists arrive as JSON text; a lock's keys are read with their own statement), and `free`, the
 * one way a lock ends. The programs (shared/locks-store.ts, holds-store.ts, edits-store.ts) run inside one
 * BEGIN IMMEDIATE transaction — so the conflict check and the insert see the same table and two callers can
 * never both win an overlapping key.
 */
import type { Lock } from '../../core/model.js';
import { type LockRow, releasedEvent } from '../shared/lock-rows.js';
import { conflictsOver, type FreeOpts, type LocksSql, type LockTarget, locksCommon } from '../shared/locks-sql.js';
import * as locks from '../shared/locks-store.js';
import type { Db } from './database.js';
import { inSqlite, inTx, runSync } from './runner.js';
import { appendEvent, stmt, type Tx } from './tx.js';

/** A work tree's lock that ended (or lapsed) and waits for git: not live, not a hold yet. */
const ENDED = 'l.worktree IS NOT NULL AND l.held_since IS NULL AND l.claim_id IS NULL AND l.lease_until <= @now';
// An ended work-tree lock waits for git (settleEnded), not for the sweep.
const LAPSED = 'SELECT lock_id FROM locks WHERE claim_id IS NULL AND lease_until <= @now AND ended_for IS NULL';
const EXACT = '(SELECT value FROM json_each(@exact))';
const KEEP = '(SELECT value FROM json_each(@keep))';

/** The lock's keys as SQLite reads them: one statement of their own (`resourcesOf`), so none in the row. */
const COMMON = locksCommon(() => 'NULL', ENDED);

/**
 * Ends one lock and records why, in the caller's transaction. A lock taken from a work tree is not deleted
 * unless `final` (a person's --force, a hold whose paths are no longer pending): it ends — no longer live,
 * still guarding its paths from other work trees — and waits for coord to ask git which of its keys are
 * pending there (`settleEnded`): those become a change hold (SPEC §14) of `task` when given, else of the task
 * it was bound to; the rest end for `reason`. Anything else is deleted (its keys cascade).
 */
function freeOne(tx: Tx, lockId: string, reason: string, opts: FreeOpts): boolean {
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

const ids = (tx: Tx, text: string, params: object): string[] =>
  (stmt(tx.db, text).all(params) as { lock_id: string }[]).map((r) => r.lock_id);

/** The locks `target` names, one at a time (one writer: nothing changes them meanwhile), each with `freeOne`. */
function free(tx: Tx, target: LockTarget, reason: string, opts: FreeOpts): string[] {
  const named =
    target.by === 'lapsed'
      ? ids(tx, LAPSED, { now: tx.now })
      : target.by === 'claim'
        ? ids(tx, COMMON.byClaim, target)
        : target.by === 'ids'
          ? target.ids
          : [target.lock_id];
  return named.filter((id) => freeOne(tx, id, reason, opts));
}

export const LOCKS_SQL: LocksSql = {
  ...COMMON,
  conflicts: conflictsOver(`resource IN ${EXACT}`, 'resource >= @lo AND resource < @hi'),
  lockBoard: '', // one writer at a time already
  insertLock: `INSERT INTO locks (lock_id, board, agent, lease_until, lease_ms, task_id, claim_id, session_id,
                     created_at, worktree)
     VALUES (@lock_id, @board, @agent, @lease_until, @lease_ms, @task_id, @claim_id, @session_id, @now, @worktree)`,
  addResource: 'INSERT INTO lock_resources (board, resource, lock_id) VALUES (@board, @resource, @lock_id)',
  renewAll: `UPDATE locks SET lease_until = MAX(lease_until, @now + @lease_ms)
     WHERE lock_id IN (SELECT value FROM json_each(@ids)) AND claim_id IS NULL AND lease_until > @now`,
  dropKeys: `DELETE FROM lock_resources WHERE lock_id = @lock_id AND resource NOT IN ${KEEP}`,
  trimKeys: `DELETE FROM lock_resources WHERE lock_id = @lock_id AND resource NOT IN ${KEEP} RETURNING resource`,
  free,
};

/** The conflict check as SQLite runs it (test/store/sqlite-locks.test.ts reads its query plan). */
export const CONFLICTS = inSqlite(LOCKS_SQL.conflicts);

export const resourcesOf = (db: Db, lockId: string): string[] =>
  (stmt(db, COMMON.resourcesOf).all({ lock_id: lockId }) as { resource: string }[]).map((r) => r.resource);

/** Read-only probe: is any plain lock's lease over (so a sweep has something to delete)? */
export const anyLockLapsed = (db: Db, now: number): boolean =>
  (stmt(db, `SELECT EXISTS (${LAPSED}) AS due`).get({ now }) as { due: number }).due === 1;

export const freeLapsedLocks = (tx: Tx): number => inTx(tx, LOCKS_SQL, locks.freeLapsedLocks);

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export const claimLock = (db: Db, now: number, claimId: string): Lock | undefined =>
  runSync(locks.claimLock(LOCKS_SQL, now, claimId), db);
