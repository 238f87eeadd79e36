/**
 * Change holds (SPEC §14): a work tree's lock that ended waits for git, then holds the keys still pending there
 * until they are merged or the tree is gone. Rows of the locks table, so locks.ts's one conflict check sees them.
 */
import type { EndedLock } from '../../core/worktrees/worktree-ports.js';
import { endedFor, HOLD_LEASE, heldEvent, type LockRow, touches } from '../shared/lock-rows.js';
import type { Db } from './database.js';
import { free, resourcesOf } from './locks.js';
import { appendEvent, stmt, type Tx } from './tx.js';

/** A work tree's lock that ended (or lapsed) and waits for git: not live, not a hold yet. */
const ENDED = `l.worktree IS NOT NULL AND l.held_since IS NULL AND l.claim_id IS NULL AND l.lease_until <= @now`;

/** The board's (or every board's) ended work-tree locks waiting for git to say what is pending. */
export function endedLocks(db: Db, now: number, board: string | null): EndedLock[] {
  const rows = stmt(
    db,
    `SELECT l.lock_id, l.board, l.agent, l.hold_task AS task_id, l.worktree FROM locks l
     WHERE ${ENDED} AND (@board IS NULL OR l.board = @board) ORDER BY l.lock_id`,
  ).all({ now, board }) as Omit<EndedLock, 'resources'>[];
  return rows.map((r) => ({ ...r, resources: resourcesOf(db, r.lock_id) }));
}

/**
 * An ended work-tree lock becomes a change hold of the keys git says are pending (`keep`), or, with none,
 * ends for the reason it ended (SPEC §14: only pending paths are held).
 */
function settleEnded(tx: Tx, lockId: string, keep: string[]): boolean {
  const row = stmt(tx.db, `SELECT l.ended_for FROM locks l WHERE l.lock_id = @lock_id AND ${ENDED}`).get({
    lock_id: lockId,
    now: tx.now,
  }) as { ended_for: string | null } | undefined;
  if (!row) return false;
  const why = endedFor(row);
  if (keep.length === 0) return free(tx, lockId, why, { final: true });
  const del = stmt(tx.db, 'DELETE FROM lock_resources WHERE lock_id = ? AND resource = ?');
  for (const r of resourcesOf(tx.db, lockId)) if (!keep.includes(r)) del.run(lockId, r);
  const held = stmt(
    tx.db,
    `UPDATE locks SET held_since = @now, lease_until = @far, ended_for = NULL WHERE lock_id = @lock_id RETURNING *`,
  ).get({ lock_id: lockId, now: tx.now, far: HOLD_LEASE }) as LockRow;
  appendEvent(tx, heldEvent(held, resourcesOf(tx.db, lockId), why));
  return true;
}

/** A person ends a lock or a hold at once (`coord unlock --force`): never becomes a hold. */
export const forceReleaseLock = (tx: Tx, lockId: string): boolean => free(tx, lockId, 'forced', { final: true });

/**
 * A hold keeps only the keys still pending in its work tree (SPEC §14); with none left it ends. `reason`
 * says why (merged, worktree_gone). An ended lock waiting for git is settled here too (`settleEnded`).
 */
export function trimHold(tx: Tx, lockId: string, keep: string[], reason: string): boolean {
  const live = stmt(tx.db, 'SELECT 1 FROM locks WHERE lock_id = ? AND held_since IS NOT NULL').get(lockId);
  if (!live) return settleEnded(tx, lockId, keep);
  if (keep.length === 0) return free(tx, lockId, reason, { final: true });
  const drop = resourcesOf(tx.db, lockId).filter((r) => !keep.includes(r));
  const del = stmt(tx.db, 'DELETE FROM lock_resources WHERE lock_id = ? AND resource = ?');
  for (const r of drop) del.run(lockId, r);
  return drop.length > 0;
}

/**
 * SPEC §14, at a submit: the agent's own plain locks from this work tree on paths the change touched become
 * holds of the task at once (its claim's locks follow the claim, in claimEnded).
 */
export function holdAtSubmit(
  tx: Tx,
  c: { board: string; agent: string; worktree: string; task_id: string; paths: string[] },
): void {
  const mine = stmt(
    tx.db,
    `SELECT lock_id FROM locks WHERE board = @board AND agent = @agent AND worktree = @worktree
       AND claim_id IS NULL AND held_since IS NULL ORDER BY lock_id`,
  ).all(c) as { lock_id: string }[];
  for (const m of mine) {
    if (touches(resourcesOf(tx.db, m.lock_id), c.paths)) {
      free(tx, m.lock_id, 'submitted', { task: c.task_id });
    }
  }
}
