/**
 * Lazy expiry (SPEC §2): a read-only, index-only probe decides whether any
 * lease or ttl is due; only then does a write transaction move those rows.
 * An empty poll therefore never opens a write transaction. Rows are moved by
 * predicate, so two daemons moving the same due rows at once move each once:
 * the second UPDATE waits for the first and re-checks its WHERE.
 */
import type { TaskRow } from '../shared/rows.js';
import { taskExpired, taskRequeued } from '../shared/task-events.js';
import { rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

/** The database clock in ms; every daemon on one database agrees on it. */
export const DB_NOW = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * Now (the injected test clock when given, else the database clock) and whether
 * anything is due, in one statement. Plain text with a numeric literal so it can
 * share a round trip with BEGIN.
 */
export const probeSql = (now: number | null): string => `SELECT n.now, ${dueAt('n.now')} AS due ${instant(now)}`;

function instant(now: number | null): string {
  if (now !== null && !Number.isSafeInteger(now)) throw new Error(`bad clock value ${now}`);
  return `FROM (SELECT ${now === null ? DB_NOW : `${now}::bigint`} AS now) AS n`;
}

/**
 * The sweep's probe: the same, and whether any plain lock's lease is over (locks_lease_due), in one round
 * trip — a daemon sweeps every second, busy or idle. An ended work-tree lock waits for git, not the sweep.
 */
export const sweepProbeSql = (now: number | null): string =>
  `SELECT n.now, ${dueAt('n.now')} AS due,
     COALESCE((SELECT min(lease_until) FROM locks WHERE claim_id IS NULL AND ended_for IS NULL) <= n.now, false)
       AS locks_due ${instant(now)}`;

/**
 * True when some lease or ttl is due at `now` (an SQL expression): two index probes,
 * each reading the first entry of its partial index. Written as min() rather than
 * EXISTS (… <= now): with `now` unknown when planning, PostgreSQL expects a third of
 * the rows to match and picks a sequential scan that stops at the first match — which,
 * when nothing is due (nearly always), reads the whole table (3.4 ms at 20k tasks,
 * against 0.05 ms for min()).
 */
export const dueAt = (now: string): string =>
  `COALESCE((SELECT min(lease_until) FROM tasks WHERE state = 'claimed') <= ${now}
    OR (SELECT min(expires_at) FROM tasks WHERE state IN ('queued', 'claimed')) <= ${now}, false)`;

export interface Probe {
  now: number;
  due: boolean;
}

export type ClaimEndedHook = (tx: Tx, row: TaskRow) => Promise<void>;

const EXPIRE = `UPDATE tasks SET state = 'expired', lease_until = NULL, updated_at = @now,
         claim_end = CASE WHEN state = 'claimed' THEN 'expired' ELSE claim_end END
  WHERE id IN (SELECT id FROM tasks WHERE state IN ('queued', 'claimed') AND expires_at <= @now ORDER BY id FOR NO KEY UPDATE)
    AND state IN ('queued', 'claimed') AND expires_at <= @now
  RETURNING *`;

// The claim's holder is gone from the row after the update: read it from the locked old version.
const REQUEUE_LAPSED = `UPDATE tasks AS t SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
         updated_at = @now, claim_end = 'lapsed'
  FROM (SELECT id, claimed_by, claim_session, lease_until FROM tasks
        WHERE state = 'claimed' AND lease_until <= @now ORDER BY id FOR NO KEY UPDATE) AS old
  WHERE t.id = old.id AND t.state = 'claimed' AND t.lease_until <= @now
  RETURNING t.*, old.claimed_by AS old_claimed_by, old.claim_session AS old_claim_session,
            old.lease_until AS old_lease_until`;

type LapsedRow = TaskRow & { old_claimed_by: string; old_claim_session: string | null; old_lease_until: number };

/** Inside a write transaction: expire past-ttl tasks, then requeue lapsed claims. Returns rows moved. */
export async function moveDue(tx: Tx, onClaimEnded: ClaimEndedHook): Promise<number> {
  const expired = await rows<TaskRow>(tx.db, EXPIRE, { now: tx.now });
  expired.sort((a, b) => a.expires_at - b.expires_at || a.id.localeCompare(b.id));
  for (const r of expired) {
    if (r.claim_end === 'expired') await onClaimEnded(tx, r);
    appendEvent(tx, taskExpired(r));
  }
  const lapsed = await rows<LapsedRow>(tx.db, REQUEUE_LAPSED, { now: tx.now });
  lapsed.sort((a, b) => a.old_lease_until - b.old_lease_until || a.id.localeCompare(b.id));
  for (const { old_claimed_by, old_claim_session, old_lease_until, ...r } of lapsed) {
    const before: TaskRow = {
      ...r,
      state: 'claimed',
      claimed_by: old_claimed_by,
      claim_session: old_claim_session,
      lease_until: old_lease_until,
      claim_end: null,
    };
    await onClaimEnded(tx, before);
    appendEvent(tx, taskRequeued(r, old_claimed_by, 'lease_lapsed'));
  }
  return expired.length + lapsed.length;
}
