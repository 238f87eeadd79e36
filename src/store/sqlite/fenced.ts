/**
 * Rule 5, fencing: the release's statements in SQLite (the program, with the heartbeat and the submit:
 * shared/fence.ts). We hold the write lock: reading who held the claim, then releasing it, cannot race.
 */
import { FENCE, type ReleaseSql } from '../shared/fence.js';

export const RELEASE_SQL: ReleaseSql = {
  before: `SELECT claimed_by AS old_claimed_by, claim_session AS old_claim_session, lease_until AS old_lease_until
     FROM tasks WHERE id = @task_id`,
  release: `UPDATE tasks SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
            claim_end = 'released', updated_at = @now, for_agent = COALESCE(@to, for_agent),
            handed_by = CASE WHEN @to IS NULL THEN handed_by ELSE claimed_by END
     WHERE ${FENCE} RETURNING *`,
};
