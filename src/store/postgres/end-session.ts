/** Rule 13's statement in PostgreSQL (the program: shared/session-end.ts). */
import type { SessionSql } from '../shared/session-end.js';

export const SESSION_SQL: SessionSql = {
  // By predicate: a claim of the session that ended meanwhile is simply not matched.
  claims: `UPDATE tasks AS t SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
         updated_at = @now::bigint, claim_end = 'session_ended'
  FROM (SELECT id, claimed_by, lease_until FROM tasks WHERE state = 'claimed' AND claim_session = @session
        ORDER BY id FOR NO KEY UPDATE) AS old
  WHERE t.id = old.id AND t.state = 'claimed' AND t.claim_session = @session
  RETURNING t.*, old.claimed_by AS old_claimed_by, old.lease_until AS old_lease_until`,
  requeue: '', // the claims statement did
};
