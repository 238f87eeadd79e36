/**
 * Rule 13: a session's owner is gone (its `coord mcp` process died or its HTTP
 * session closed). In one transaction its claims go back to the queue and its
 * locks are freed — at once, not when their leases would have run out.
 */
import type { SessionEnded } from '../../core/ports.js';
import type { TaskRow } from '../shared/rows.js';
import { taskRequeued } from '../shared/task-events.js';
import { claimEnded, freeSessionLocks } from './locks.js';
import { appendEvent, stmt, type Tx } from './tx.js';

export function endSession(tx: Tx, sessionId: string): SessionEnded {
  // We hold the write lock: reading the session's claims and locks, then freeing them, cannot race.
  const locks = stmt(tx.db, 'SELECT lock_id FROM locks WHERE session_id = ? ORDER BY lock_id').all(sessionId) as {
    lock_id: string;
  }[];
  const claimed = stmt(tx.db, `SELECT * FROM tasks WHERE state = 'claimed' AND claim_session = ? ORDER BY id`).all(
    sessionId,
  ) as TaskRow[];
  stmt(
    tx.db,
    `UPDATE tasks SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
            updated_at = @now, claim_end = 'session_ended'
     WHERE state = 'claimed' AND claim_session = @session`,
  ).run({ session: sessionId, now: tx.now });
  for (const r of claimed) {
    claimEnded(tx, r);
    appendEvent(tx, taskRequeued(r, r.claimed_by, 'session_ended'));
  }
  // The claims' own locks went with them (claimEnded); the session's plain locks go now.
  freeSessionLocks(tx, sessionId, claimed);
  return { requeued: claimed.map((r) => r.id), released: locks.map((l) => l.lock_id) };
}
