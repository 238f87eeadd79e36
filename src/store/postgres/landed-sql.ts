/**
 * PostgreSQL's statements of landing (store/shared/landed.ts). The count-down is a separate statement after the
 * landing's: in READ COMMITTED it sees every edge committed before that took the blocker's row lock, including
 * one whose request waited for that lock (deps.ts locks the blockers it counts). Dependents are locked in id
 * order, so two landings sharing dependents queue instead of deadlocking; a dependent being claimed meanwhile is
 * decided by its own row (the claim's `blockers_open = 0` and the count-down both write it).
 */
import { landedSql } from '../shared/landed.js';
import { MESSAGES_SQL } from './messages-sql.js';

export const LANDED_SQL = landedSql(
  MESSAGES_SQL,
  `WITH d AS (
      SELECT t.id FROM tasks AS t JOIN task_deps AS e ON e.task_id = t.id
      WHERE e.blocker_id = @id AND t.state IN ('queued', 'claimed')
      ORDER BY t.id FOR NO KEY UPDATE OF t)
    UPDATE tasks AS t SET blockers_open = t.blockers_open - 1, updated_at = @now::bigint FROM d WHERE t.id = d.id
    RETURNING t.id, t.board, t.state, t.blockers_open`,
);
