/** The integration queue's statements (store/shared/integration-sql.ts), two in PostgreSQL's own way: a queued row's seq comes from a sequence; a list of ids is an array. */
import { integrationSql } from '../shared/integration-sql.js';
import { DEPS_SQL } from './deps-sql.js';

export const INTEGRATION_SQL = integrationSql(DEPS_SQL, {
  queuedSeq: null,
  byIds: 'SELECT * FROM integrations WHERE task_id = ANY(@ids::text[])',
});
