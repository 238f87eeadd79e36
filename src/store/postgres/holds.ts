/**
 * Change holds (SPEC §14): a work tree's lock that ended waits for git, then holds the keys still pending there
 * until they are merged or the tree is gone. Rows of the locks table, so locks.ts's one conflict check sees them.
 */
import type { EndedLock } from '../../core/worktrees/worktree-ports.js';
import { endedFor, HOLD_LEASE, heldEvent, type LockRow, touches } from '../shared/lock-rows.js';
import type { Queryable } from './database.js';
import { DB_NOW } from './due.js';
import { free, RESOURCES } from './locks.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

/** A work tree's lock that ended (or lapsed) and waits for git: not live, not a hold yet. */
const ENDED = `l.worktree IS NOT NULL AND l.held_since IS NULL AND l.claim_id IS NULL
  AND l.lease_until <= COALESCE(@now::bigint, ${DB_NOW})`;

/** The board's (or every board's) ended work-tree locks waiting for git to say what is pending. */
export const endedLocks = (db: Queryable, now: number | null, board: string | null): Promise<EndedLock[]> =>
  rows<EndedLock>(
    db,
    `SELECT l.lock_id, l.board, l.agent, l.hold_task AS task_id, l.worktree, ${RESOURCES} AS resources FROM locks l
     WHERE ${ENDED} AND (@board::text IS NULL OR l.board = @board::text) ORDER BY l.lock_id`,
    { now, board },
  );

/**
 * An ended work-tree lock becomes a change hold of the keys git says are pending (`keep`), or, with none,
 * ends for the reason it ended (SPEC §14: only pending paths are held).
 */
async function settleEnded(tx: Tx, lockId: string, keep: string[]): Promise<boolean> {
  const r = await row<{ ended_for: string | null }>(
    tx.db,
    `SELECT l.ended_for FROM locks l WHERE l.lock_id = @lock_id AND ${ENDED} FOR UPDATE`,
    { lock_id: lockId, now: tx.now },
  );
  if (!r) return false;
  const why = endedFor(r);
  if (keep.length === 0)
    return (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, why, { final: true })).length > 0;
  await rows(tx.db, 'DELETE FROM lock_resources WHERE lock_id = @lock_id AND NOT (resource = ANY (@keep::text[]))', {
    lock_id: lockId,
    keep,
  });
  const held = await row<LockRow & { resources: string[] }>(
    tx.db,
    `UPDATE locks SET held_since = @now::bigint, lease_until = ${HOLD_LEASE}, ended_for = NULL WHERE lock_id = @lock_id
     RETURNING *, ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = locks.lock_id ORDER BY r.resource)
       AS resources`,
    { lock_id: lockId, now: tx.now },
  );
  if (held) appendEvent(tx, heldEvent(held, held.resources, why));
  return true;
}

/** A person ends a lock or a hold at once (`coord unlock --force`). */
export const forceReleaseLock = async (tx: Tx, lockId: string): Promise<boolean> =>
  (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, 'forced', { final: true })).length > 0;

/** A hold keeps only the keys still pending in its work tree; with none left it ends for `reason`. */
export async function trimHold(tx: Tx, lockId: string, keep: string[], reason: string): Promise<boolean> {
  const hold = await row(tx.db, 'SELECT 1 FROM locks WHERE lock_id = @lock_id AND held_since IS NOT NULL', {
    lock_id: lockId,
  });
  if (!hold) return settleEnded(tx, lockId, keep);
  if (keep.length === 0) {
    return (
      (await free(tx, 'lock_id = @lock_id AND held_since IS NOT NULL', { lock_id: lockId }, reason, { final: true }))
        .length > 0
    );
  }
  const gone = await rows(
    tx.db,
    `DELETE FROM lock_resources r USING locks l
     WHERE r.lock_id = @lock_id AND l.lock_id = r.lock_id AND l.held_since IS NOT NULL
       AND NOT (r.resource = ANY (@keep::text[])) RETURNING r.resource`,
    { lock_id: lockId, keep },
  );
  return gone.length > 0;
}

/** SPEC §14, at a submit: the agent's plain locks from this work tree on the change's paths become the task's holds. */
export async function holdAtSubmit(
  tx: Tx,
  c: { board: string; agent: string; worktree: string; task_id: string; paths: string[] },
): Promise<void> {
  const mine = await rows<{ lock_id: string; resources: string[] }>(
    tx.db,
    `SELECT l.lock_id, ${RESOURCES} AS resources FROM locks l
     WHERE l.board = @board AND l.agent = @agent AND l.worktree = @worktree AND l.claim_id IS NULL
       AND l.held_since IS NULL ORDER BY l.lock_id`,
    c,
  );
  for (const m of mine) {
    if (touches(m.resources, c.paths)) {
      await free(tx, 'lock_id = @lock_id', { lock_id: m.lock_id }, 'submitted', { task: c.task_id });
    }
  }
}
