/** The integration queue's statements (store/shared/integration-sql.ts), two in PostgreSQL's own way: a queued row's seq comes from a sequence; a list of ids is an array. */
import { INTEGRATION_COMMON, type IntegrationSql } from '../shared/integration-sql.js';
import { DEPS_SQL } from './deps-sql.js';
import { LANDED_SQL } from './landed-sql.js';
import { MESSAGES_SQL } from './messages-sql.js';

export const INTEGRATION_SQL: IntegrationSql = {
  ...INTEGRATION_COMMON,
  queue: `INSERT INTO integrations (task_id, board, state, worktree, branch, head, queued_at, updated_at)
    SELECT id, board, 'pending', @worktree, @branch, @head, @now::bigint, @now::bigint
    FROM tasks WHERE id = @task_id
    ON CONFLICT (task_id) DO NOTHING`,
  byIds: 'SELECT * FROM integrations WHERE task_id = ANY(@ids::text[])',
  messages: MESSAGES_SQL,
  tasks: DEPS_SQL,
  landed: LANDED_SQL,
};
