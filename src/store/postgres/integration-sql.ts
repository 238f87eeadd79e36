/** The integration queue's statements (store/shared/integration-sql.ts), two in PostgreSQL's own way: a queued row's seq comes from a sequence; a list of ids is an array. */
import { integrationSql } from '../shared/integration-sql.js';
import { DEPS_SQL } from './deps-sql.js';

export const INTEGRATION_SQL = integrationSql(DEPS_SQL, {
  queue: `INSERT INTO integrations (task_id, board, state, worktree, branch, head, queued_at, updated_at)
    SELECT id, board, 'pending', @worktree, @branch, @head, @now::bigint, @now::bigint
    FROM tasks WHERE id = @task_id
    ON CONFLICT (task_id) DO NOTHING`,
  byIds: 'SELECT * FROM integrations WHERE task_id = ANY(@ids::text[])',
});
