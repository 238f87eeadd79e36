/**
 * Lazy expiry (SPEC §2): a read-only, index-only probe decides whether any
 * lease or ttl is due; only then does a write transaction move those rows.
 * An empty poll therefore never takes SQLite's write lock.
 */

import { type DueSql, expireSql, moveDue as moveDueOnce, REQUEUE_SET, TTL_PAST } from '../shared/due.js';
import type { LocksSql } from '../shared/locks-sql.js';
import type { Db } from './database.js';
import { inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

const DUE_PROBE = `SELECT EXISTS (SELECT 1 FROM tasks WHERE state = 'claimed' AND lease_until <= @now)
                       OR EXISTS (SELECT 1 FROM tasks WHERE ${TTL_PAST}) AS due`;

export const anyDue = (db: Db, now: number): boolean => (stmt(db, DUE_PROBE).get({ now }) as { due: number }).due === 1;

const DUE_SQL: DueSql = {
  expire: expireSql(TTL_PAST),
  // We hold the write lock, so reading the due rows and then moving them cannot race.
  lapsed: `SELECT *, claimed_by AS old_claimed_by, claim_session AS old_claim_session, lease_until AS old_lease_until
     FROM tasks WHERE state = 'claimed' AND lease_until <= @now`,
  requeue: `UPDATE tasks ${REQUEUE_SET}
     WHERE state = 'claimed' AND lease_until <= @now`,
};

/** Inside a write transaction: expire past-ttl tasks, then requeue lapsed claims (shared/due.ts). Returns rows moved. */
export const moveDue = (tx: Tx, locks: LocksSql): number => inTx(tx, DUE_SQL, (q) => moveDueOnce(q, locks));
