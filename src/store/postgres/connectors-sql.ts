/** The statements of the connectors (store/shared/connectors.ts) in PostgreSQL's dialect. */
import { CONNECTORS_COMMON, type ConnectorsSql } from '../shared/connectors-sql.js';

export const CONNECTORS_SQL: ConnectorsSql = {
  ...CONNECTORS_COMMON,
  // Two registrations at once must not both pass the count of unused clients.
  serialiseRegistration: "SELECT pg_advisory_xact_lock(hashtext('coord.oauth_clients'), hashtext(current_schema()))",
};
