/**
 * Lazy expiry (SPEC §2): a read-only, index-only probe decides whether any
 * lease or ttl is due; only then does a write transaction move those rows.
 * An empty poll therefore never takes SQLite's write lock.
 */

import type { TaskRow } from '../shared/rows.js';
import { taskExpired, taskRequeued } from '../shared/task-events.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const DUE_PROBE = `SELECT EXISTS (SELECT 1 FROM tasks WHERE state = 'claimed' AND lease_until <= @now)
                       OR EXISTS (SELECT 1 FROM tasks WHERE state IN ('queued', 'claimed') AND expires_at <= @now) AS due`;

export const anyDue = (db: Db, now: number): boolean => (stmt(db, DUE_PROBE).get({ now }) as { due: number }).due === 1;

/** Inside a write transaction: expire past-ttl tasks, then requeue lapsed claims. Returns rows moved. */
export function moveDue(tx: Tx, onClaimEnded: (tx: Tx, row: TaskRow) => void): number {
  const expired = stmt(
    tx.db,
    `UPDATE tasks SET state = 'expired', lease_until = NULL, updated_at = @now,
            claim_end = CASE WHEN state = 'claimed' THEN 'expired' ELSE claim_end END
     WHERE state IN ('queued', 'claimed') AND expires_at <= @now RETURNING *`,
  ).all({ now: tx.now }) as TaskRow[];
  for (const r of expired) {
    if (r.claim_end === 'expired') onClaimEnded(tx, r);
    appendEvent(tx, taskExpired(r));
  }
  // We hold the write lock, so reading the due rows and then moving them cannot race.
  const lapsed = stmt(tx.db, `SELECT * FROM tasks WHERE state = 'claimed' AND lease_until <= @now`).all({
    now: tx.now,
  }) as TaskRow[];
  if (lapsed.length === 0) return expired.length;
  stmt(
    tx.db,
    `UPDATE tasks SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
            updated_at = @now, claim_end = 'lapsed'
     WHERE state = 'claimed' AND lease_until <= @now`,
  ).run({ now: tx.now });
  for (const r of lapsed) {
    onClaimEnded(tx, r);
    appendEvent(tx, taskRequeued(r, r.claimed_by, 'lease_lapsed'));
  }
  return expired.length + lapsed.length;
}
