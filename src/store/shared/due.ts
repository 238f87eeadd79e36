/**
 * Lazy expiry (SPEC §2) written once for both stores: inside a write transaction, past-ttl tasks expire, then
 * lapsed claims are requeued, each with its event; a claim that ends frees its locks (rule 10, locks-store.ts
 * freeClaimLocks). A program (program.ts) over each store's statements (`<store>/due.ts`): SQLite reads the lapsed claims,
 * then requeues them (it holds the write lock, so the two cannot race); PostgreSQL requeues them in one
 * statement that returns each as it was (the locked old version). Events go in due order.
 */
import type { LocksSql } from './locks-sql.js';
import { freeClaimLocks } from './locks-store.js';
import { all, emit, type Prog, type Q, run } from './program.js';
import type { TaskRow } from './rows.js';
import { taskExpired, taskRequeued } from './task-events.js';

export interface DueSql {
  /** Expires past-ttl tasks, RETURNING them (claim_end 'expired' when it ended a claim). */
  expire: string;
  /** The lapsed claims, each with its holder, session and lease before the requeue (old_…). */
  lapsed: string;
  /** Requeues them; empty when `lapsed` did. */
  requeue: string;
}

/** The tasks whose ttl is past. */
export const TTL_PAST = "state IN ('queued', 'claimed') AND expires_at <= @now";

/**
 * The expiry of the tasks `which` picks (the store's, over TTL_PAST), RETURNING them: each row's claim, if any,
 * ends as 'expired'.
 */
export const expireSql = (which: string): string => `UPDATE tasks
  SET state = 'expired', lease_until = NULL, updated_at = @now,
      claim_end = CASE WHEN state = 'claimed' THEN 'expired' ELSE claim_end END
  WHERE ${which} RETURNING *`;

/** A lapsed claim's requeue. */
export const REQUEUE_SET = `SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
         updated_at = @now, claim_end = 'lapsed'`;

/** A claim's row after an update that ended it, with who held it and how until (`old_*`). */
export type EndedClaimRow = TaskRow & {
  old_claimed_by: string;
  old_claim_session: string | null;
  old_lease_until: number;
};

/** A requeued claim's row as it was before. */
export function claimedBefore(r: EndedClaimRow): TaskRow {
  const { old_claimed_by, old_claim_session, old_lease_until, ...after } = r;
  return {
    ...after,
    state: 'claimed',
    claimed_by: old_claimed_by,
    claim_session: old_claim_session,
    lease_until: old_lease_until,
    claim_end: null,
  };
}

/** Inside a write transaction: expire past-ttl tasks, then requeue lapsed claims. Returns rows moved. */
export function* moveDue(q: Q<DueSql>, locks: LocksSql): Prog<number> {
  const freeing = { sql: locks, now: q.now };
  const expired = yield* all<TaskRow>(q.sql.expire, { now: q.now });
  expired.sort((a, b) => a.expires_at - b.expires_at || a.id.localeCompare(b.id));
  for (const r of expired) {
    if (r.claim_end === 'expired') yield* freeClaimLocks(freeing, r.claim_id);
    yield* emit(taskExpired(r));
  }
  const lapsed = yield* all<EndedClaimRow>(q.sql.lapsed, { now: q.now });
  if (lapsed.length === 0) return expired.length;
  yield* run(q.sql.requeue, { now: q.now });
  lapsed.sort((a, b) => a.old_lease_until - b.old_lease_until || a.id.localeCompare(b.id));
  for (const r of lapsed) {
    const before = claimedBefore(r);
    yield* freeClaimLocks(freeing, before.claim_id);
    yield* emit(taskRequeued(before, r.old_claimed_by, 'lease_lapsed'));
  }
  return expired.length + lapsed.length;
}
