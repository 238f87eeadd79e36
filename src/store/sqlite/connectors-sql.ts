/** The statements of the connectors (store/shared/connectors.ts) in SQLite's dialect. */
import { CONNECTORS_COMMON, type ConnectorsSql } from '../shared/connectors-sql.js';

export const CONNECTORS_SQL: ConnectorsSql = {
  ...CONNECTORS_COMMON,
  serialiseRegistration: '', // one writer already
};
