/** The integration queue's statements (store/shared/integration-sql.ts), two in SQLite's own way: a queued row's seq is the next number (one writer at a time); a list of ids is JSON text. */
import { integrationSql } from '../shared/integration-sql.js';
import { DEPS_SQL } from './deps-sql.js';

export const INTEGRATION_SQL = integrationSql(DEPS_SQL, {
  queuedSeq: '(SELECT COALESCE(MAX(seq), 0) + 1 FROM integrations)',
  byIds: 'SELECT * FROM integrations WHERE task_id IN (SELECT value FROM json_each(@ids))',
});
