/**
 * Rule 5, fencing: the release's statement in PostgreSQL (the program, with the heartbeat and the submit:
 * shared/fence.ts). A stale claim_id can never change a row.
 */
import type { ReleaseSql } from '../shared/fence.js';

const FENCE_T = `t.id = @task_id AND t.state = 'claimed' AND t.claim_id = @claim_id AND t.lease_until > @now::bigint`;

// The holder is cleared by the update; the locked old version tells who it was.
const RELEASE = `UPDATE tasks AS t SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
         claim_end = 'released', updated_at = @now::bigint, for_agent = COALESCE(@to::text, t.for_agent),
         handed_by = CASE WHEN @to::text IS NULL THEN t.handed_by ELSE old.claimed_by END
  FROM (SELECT id, claimed_by, claim_session, lease_until FROM tasks WHERE id = @task_id FOR NO KEY UPDATE) AS old
  WHERE t.id = old.id AND ${FENCE_T}
  RETURNING t.*, old.claimed_by AS old_claimed_by, old.claim_session AS old_claim_session,
            old.lease_until AS old_lease_until`;

export const RELEASE_SQL: ReleaseSql = { before: '', release: RELEASE };
