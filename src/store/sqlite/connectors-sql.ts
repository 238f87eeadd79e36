/** The statements of the connectors (store/shared/connectors.ts) in SQLite's dialect. */
import type { ConnectorsSql } from '../shared/connectors.js';

const UNUSED =
  'FROM oauth_clients WHERE NOT EXISTS (SELECT 1 FROM connector_grants g WHERE g.client_id = oauth_clients.client_id)';

export const CONNECTORS_SQL: ConnectorsSql = {
  serialiseRegistration: '', // one writer already
  deleteUnusedClients: `DELETE ${UNUSED} AND created_at <= @t`,
  countUnusedClients: `SELECT count(*) AS n ${UNUSED}`,
  insertClient: `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, metadata, created_at)
    VALUES (@client_id, @secret_hash, @name, @redirect_uris, @metadata, @now)`,
  clientById: 'SELECT * FROM oauth_clients WHERE client_id = @id',
  deleteExpiredConnectCodes: 'DELETE FROM connect_codes WHERE expires_at <= @now',
  insertConnectCode:
    'INSERT INTO connect_codes (hash, board, agent, expires_at) VALUES (@hash, @board, @agent, @expires_at)',
  spendConnectCode: 'DELETE FROM connect_codes WHERE hash = @hash AND expires_at > @now RETURNING board, agent',
  wrongGuess: 'UPDATE connect_codes SET wrong = wrong + 1 WHERE expires_at > @now',
  deleteGuessedOut: 'DELETE FROM connect_codes WHERE wrong >= @max',
  insertCode: `INSERT INTO oauth_codes (hash, client_id, redirect_uri, challenge, resource, board, agent, expires_at)
    VALUES (@hash, @client_id, @redirect_uri, @challenge, @resource, @board, @agent, @expires_at)`,
  insertTokens: `INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at)
    VALUES (@access_hash, @grant_id, 'access', @access_expires_at), (@refresh_hash, @grant_id, 'refresh', @refresh_expires_at)`,
  grantById: 'SELECT * FROM connector_grants WHERE id = @id',
  revokeGrant: 'UPDATE connector_grants SET revoked_at = @now WHERE id = @id AND revoked_at IS NULL RETURNING *',
  deleteGrantTokens: 'DELETE FROM oauth_tokens WHERE grant_id = @id',
  deleteOldCodes: 'DELETE FROM oauth_codes WHERE expires_at <= @t',
  deleteExpiredTokens: 'DELETE FROM oauth_tokens WHERE expires_at <= @now',
  codeByHash: 'SELECT * FROM oauth_codes WHERE hash = @hash',
  spendCode: 'UPDATE oauth_codes SET used = 1 WHERE hash = @hash',
  insertGrant: `INSERT INTO connector_grants (id, client_id, client_name, board, agent, resource, created_at)
    VALUES (@id, @client_id, @client_name, @board, @agent, @resource, @created_at)`,
  linkCode: 'UPDATE oauth_codes SET grant_id = @id WHERE hash = @hash',
  refreshToken: "SELECT * FROM oauth_tokens WHERE hash = @hash AND kind = 'refresh'",
  spendToken: 'UPDATE oauth_tokens SET spent = 1 WHERE hash = @hash',
  deleteAccessTokens: "DELETE FROM oauth_tokens WHERE grant_id = @id AND kind = 'access'",
  accessGrant: `SELECT g.*, t.expires_at AS token_expires_at FROM oauth_tokens t JOIN connector_grants g ON g.id = t.grant_id
    JOIN oauth_clients c ON c.client_id = g.client_id
    WHERE t.hash = @hash AND t.kind = 'access' AND t.expires_at > @now AND g.revoked_at IS NULL`,
  pendingConnect: 'SELECT board, agent FROM connect_codes WHERE expires_at > @now ORDER BY expires_at DESC LIMIT 1',
  touchGrant: 'UPDATE connector_grants SET last_used_at = @now WHERE id = @id',
  listGrants: 'SELECT * FROM connector_grants ORDER BY created_at, id',
  clientGrants: 'SELECT id FROM connector_grants WHERE client_id = @c ORDER BY id',
  deleteClientCodes: 'DELETE FROM oauth_codes WHERE client_id = @c',
  deleteClient: 'DELETE FROM oauth_clients WHERE client_id = @c',
};
