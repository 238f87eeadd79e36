/**
 * Rule 13's statements in SQLite (the program: shared/session-end.ts). We hold the write lock: reading the
 * session's claims, then requeueing them, cannot race.
 */
import type { SessionSql } from '../shared/session-end.js';

export const SESSION_SQL: SessionSql = {
  claims: `SELECT *, claimed_by AS old_claimed_by, lease_until AS old_lease_until
     FROM tasks WHERE state = 'claimed' AND claim_session = @session ORDER BY id`,
  requeue: `UPDATE tasks SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
            updated_at = @now, claim_end = 'session_ended'
     WHERE state = 'claimed' AND claim_session = @session`,
};
