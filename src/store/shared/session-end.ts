/**
 * Rule 13 written once for both stores: a session's owner is gone (its `coord mcp` process died or its HTTP
 * session closed). In one transaction its claims go back to the queue — each with its event, its locks going
 * with it (rule 10) — and its plain locks are freed, at once, not when their leases would have run out. A
 * program (program.ts) over each store's statements (`<store>/end-session.ts`): SQLite reads the session's
 * claims, then requeues them (it holds the write lock, so the two cannot race); PostgreSQL requeues them by
 * predicate in one statement that returns each as it was (the locked old version), so a claim of the session
 * that ended meanwhile is simply not matched.
 */
import type { SessionEnded } from '../../core/ports.js';
import { claimedBefore, type EndedClaimRow } from './due.js';
import type { LocksSql } from './locks-sql.js';
import { freeClaimLocks, freeSessionLocks } from './locks-store.js';
import { all, emit, type Prog, type Q, run } from './program.js';
import { taskRequeued } from './task-events.js';

export interface SessionSql {
  /** The session's claims (@session), each with its holder and lease before the requeue (old_…). */
  claims: string;
  /** Requeues them; empty when `claims` did. */
  requeue: string;
}

/** The statements of the session's claims and of the locks. */
export interface SessionEndSql {
  session: SessionSql;
  locks: LocksSql;
}

export function* endSession(q: Q<SessionEndSql>, sessionId: string): Prog<SessionEnded> {
  const params = { session: sessionId, now: q.now };
  // The session's locks, plain or a claim's: what the answer names as released.
  const locks = yield* all<{ lock_id: string }>(q.sql.locks.bySession, { session_id: sessionId });
  const ended = yield* all<Omit<EndedClaimRow, 'old_claim_session'>>(q.sql.session.claims, params);
  yield* run(q.sql.session.requeue, params);
  ended.sort((a, b) => a.id.localeCompare(b.id));
  const claims = ended.map((r) => claimedBefore({ ...r, old_claim_session: sessionId }));
  const locksQ = { sql: q.sql.locks, now: q.now };
  for (const before of claims) {
    yield* freeClaimLocks(locksQ, before.claim_id);
    yield* emit(taskRequeued(before, before.claimed_by, 'session_ended'));
  }
  // The claims' own locks went with them; the session's plain locks go now.
  yield* freeSessionLocks(locksQ, sessionId, claims);
  return { requeued: claims.map((r) => r.id), released: locks.map((l) => l.lock_id) };
}
