/** The statements of the connectors (store/shared/connectors.ts) in PostgreSQL's dialect. */
import { connectorsSql } from '../shared/connectors-sql.js';

// Two registrations at once must not both pass the count of unused clients.
export const CONNECTORS_SQL = connectorsSql(
  "SELECT pg_advisory_xact_lock(hashtext('coord.oauth_clients'), hashtext(current_schema()))",
);
