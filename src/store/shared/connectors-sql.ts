/**
 * The statements of the connectors (connectors.ts) written once for both dialects: PostgreSQL's text, which
 * SQLite's runner runs without the casts and row locks (`FOR UPDATE`) it does without. Each store adds its own
 * (`<store>/connectors-sql.ts`).
 */
const UNUSED =
  'FROM oauth_clients WHERE NOT EXISTS (SELECT 1 FROM connector_grants g WHERE g.client_id = oauth_clients.client_id)';

export const CONNECTORS_COMMON = {
  deleteUnusedClients: `DELETE ${UNUSED} AND created_at <= @t::bigint`,
  countUnusedClients: `SELECT count(*)::int AS n ${UNUSED}`,
  insertClient: `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, metadata, created_at)
     VALUES (@client_id, @secret_hash, @name, @redirect_uris, @metadata, @now::bigint)`,
  clientById: 'SELECT * FROM oauth_clients WHERE client_id = @id::text',
  deleteExpiredConnectCodes: 'DELETE FROM connect_codes WHERE expires_at <= @now::bigint',
  insertConnectCode:
    'INSERT INTO connect_codes (hash, board, agent, expires_at) VALUES (@hash, @board, @agent, @expires_at::bigint)',
  spendConnectCode: 'DELETE FROM connect_codes WHERE hash = @hash AND expires_at > @now::bigint RETURNING board, agent',
  wrongGuess: 'UPDATE connect_codes SET wrong = wrong + 1 WHERE expires_at > @now::bigint',
  deleteGuessedOut: 'DELETE FROM connect_codes WHERE wrong >= @max::int',
  insertCode: `INSERT INTO oauth_codes (hash, client_id, redirect_uri, challenge, resource, board, agent, expires_at)
     VALUES (@hash, @client_id, @redirect_uri, @challenge, @resource, @board, @agent, @expires_at::bigint)`,
  insertTokens: `INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at)
     VALUES (@access_hash, @grant_id, 'access', @access_expires_at::bigint),
            (@refresh_hash, @grant_id, 'refresh', @refresh_expires_at::bigint)`,
  grantById: 'SELECT * FROM connector_grants WHERE id = @id::text',
  revokeGrant:
    'UPDATE connector_grants SET revoked_at = @now::bigint WHERE id = @id AND revoked_at IS NULL RETURNING *',
  deleteGrantTokens: 'DELETE FROM oauth_tokens WHERE grant_id = @id::text',
  deleteOldCodes: 'DELETE FROM oauth_codes WHERE expires_at <= @t::bigint',
  deleteExpiredTokens: 'DELETE FROM oauth_tokens WHERE expires_at <= @now::bigint',
  codeByHash: 'SELECT * FROM oauth_codes WHERE hash = @hash FOR UPDATE',
  spendCode: 'UPDATE oauth_codes SET used = true WHERE hash = @hash',
  insertGrant: `INSERT INTO connector_grants (id, client_id, client_name, board, agent, resource, created_at)
     VALUES (@id, @client_id, @client_name, @board, @agent, @resource, @created_at::bigint)`,
  linkCode: 'UPDATE oauth_codes SET grant_id = @id::text WHERE hash = @hash',
  refreshToken: "SELECT * FROM oauth_tokens WHERE hash = @hash AND kind = 'refresh' FOR UPDATE",
  spendToken: 'UPDATE oauth_tokens SET spent = true WHERE hash = @hash',
  deleteAccessTokens: "DELETE FROM oauth_tokens WHERE grant_id = @id::text AND kind = 'access'",
  accessGrant: `SELECT g.*, t.expires_at AS token_expires_at FROM oauth_tokens t JOIN connector_grants g ON g.id = t.grant_id
     JOIN oauth_clients c ON c.client_id = g.client_id
     WHERE t.hash = @hash AND t.kind = 'access' AND t.expires_at > @now::bigint AND g.revoked_at IS NULL`,
  pendingConnect:
    'SELECT board, agent FROM connect_codes WHERE expires_at > @now::bigint ORDER BY expires_at DESC LIMIT 1',
  touchGrant: 'UPDATE connector_grants SET last_used_at = @now::bigint WHERE id = @id::text',
  listGrants: 'SELECT * FROM connector_grants ORDER BY created_at, id',
  clientGrants: 'SELECT id FROM connector_grants WHERE client_id = @c::text ORDER BY id',
  deleteClientCodes: 'DELETE FROM oauth_codes WHERE client_id = @c::text',
  deleteClient: 'DELETE FROM oauth_clients WHERE client_id = @c::text',
};

/** The statements, each in the store's dialect; `serialiseRegistration` may be empty (one writer already). */
export type ConnectorsSql = typeof CONNECTORS_COMMON & Record<'serialiseRegistration', string>;

/** A store's table of the connectors: the common statements and how it serialises registrations. */
export const connectorsSql = (serialiseRegistration: string): ConnectorsSql => ({
  ...CONNECTORS_COMMON,
  serialiseRegistration,
});
