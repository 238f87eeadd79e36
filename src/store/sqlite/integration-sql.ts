/** The integration queue's statements (store/shared/integration-sql.ts), two in SQLite's own way: a queued row's seq is the next number (one writer at a time); a list of ids is JSON text. */
import { integrationSql } from '../shared/integration-sql.js';
import { DEPS_SQL } from './deps-sql.js';

export const INTEGRATION_SQL = integrationSql(DEPS_SQL, {
  queue: `INSERT INTO integrations (task_id, board, state, worktree, branch, head, queued_at, seq, updated_at)
    SELECT id, board, 'pending', @worktree, @branch, @head, @now, (SELECT COALESCE(MAX(seq), 0) + 1 FROM integrations), @now
    FROM tasks WHERE id = @task_id
    ON CONFLICT (task_id) DO NOTHING`,
  byIds: 'SELECT * FROM integrations WHERE task_id IN (SELECT value FROM json_each(@ids))',
});
