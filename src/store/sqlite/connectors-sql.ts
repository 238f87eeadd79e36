/** The statements of the connectors (store/shared/connectors.ts) in SQLite's dialect. */
import { connectorsSql } from '../shared/connectors-sql.js';

/** No serialisation of registrations: one writer at a time already. */
export const CONNECTORS_SQL = connectorsSql('');
