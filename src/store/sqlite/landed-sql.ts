/** SQLite's statements of landing (store/shared/landed.ts): the count-down in one statement (one writer at a time). */
import { landedSql } from '../shared/landed.js';
import { MESSAGES_SQL } from './messages-sql.js';

export const LANDED_SQL = landedSql(
  MESSAGES_SQL,
  `UPDATE tasks SET blockers_open = blockers_open - 1, updated_at = @now
    WHERE id IN (SELECT task_id FROM task_deps WHERE blocker_id = @id) AND state IN ('queued', 'claimed')
    RETURNING id, board, state, blockers_open`,
);
