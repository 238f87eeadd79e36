/** Remote connectors (SPEC §16): OAuth clients, codes, grants and tokens — hashes only. */
import {
  CONNECT_CODE_MAX_WRONG,
  type Connectors,
  type Grant,
  type OAuthClientRecord,
  type TokenPair,
  UNUSED_CLIENT_TTL_MS,
} from '../../core/connectors/connector-ports.js';
import {
  type ClientRow,
  type CodeRow,
  type GrantRow,
  grantedEvent,
  revokedEvent,
  type TokenRow,
  toClient,
  toGrant,
} from '../shared/connector-rows.js';
import {
  type Answer,
  accessGrant,
  approvedCode,
  codeBeforeSpend,
  grantOfCode,
  refreshRefusal,
  reused,
} from '../shared/connector-rules.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const UNUSED =
  'FROM oauth_clients WHERE NOT EXISTS (SELECT 1 FROM connector_grants g WHERE g.client_id = oauth_clients.client_id)';

export function registerClient(
  tx: Tx,
  c: Omit<OAuthClientRecord, 'created_at'>,
  maxUnused: number,
): OAuthClientRecord | null {
  stmt(tx.db, `DELETE ${UNUSED} AND created_at <= ?`).run(tx.now - UNUSED_CLIENT_TTL_MS);
  const unused = (stmt(tx.db, `SELECT count(*) AS n ${UNUSED}`).get() as { n: number }).n;
  if (unused >= maxUnused) return null;
  stmt(
    tx.db,
    `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, metadata, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(c.client_id, c.secret_hash, c.name, JSON.stringify(c.redirect_uris), JSON.stringify(c.metadata), tx.now);
  return { ...c, created_at: tx.now };
}

export function getClient(db: Db, clientId: string): OAuthClientRecord | null {
  const r = stmt(db, 'SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId) as ClientRow | undefined;
  return r ? toClient(r) : null;
}

export function addConnectCode(
  tx: Tx,
  c: { hash: string; board: string | null; agent: string | null; expires_at: number },
): void {
  // Expired codes go as new ones come: the table holds only codes that can still be spent.
  stmt(tx.db, 'DELETE FROM connect_codes WHERE expires_at <= ?').run(tx.now);
  stmt(tx.db, 'INSERT INTO connect_codes (hash, board, agent, expires_at) VALUES (?, ?, ?, ?)').run(
    c.hash,
    c.board,
    c.agent,
    c.expires_at,
  );
}

export function approve(tx: Tx, cmd: Parameters<Connectors['approve']>[0]): Answer<'approve'> {
  let spent: { board: string | null; agent: string | null } | undefined;
  if (cmd.connect_hash !== null) {
    // The single winning statement: a code spent twice at once is deleted once.
    spent = stmt(tx.db, 'DELETE FROM connect_codes WHERE hash = ? AND expires_at > ? RETURNING board, agent').get(
      cmd.connect_hash,
      tx.now,
    ) as { board: string | null; agent: string | null } | undefined;
    if (!spent) {
      // A wrong answer: every live code is one guess closer to being spent (SPEC §16).
      stmt(tx.db, 'UPDATE connect_codes SET wrong = wrong + 1 WHERE expires_at > ?').run(tx.now);
      stmt(tx.db, 'DELETE FROM connect_codes WHERE wrong >= ?').run(CONNECT_CODE_MAX_WRONG);
      return { ok: false };
    }
  }
  const c = approvedCode(cmd, spent ?? null);
  stmt(
    tx.db,
    `INSERT INTO oauth_codes (hash, client_id, redirect_uri, challenge, resource, board, agent, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(c.hash, c.client_id, c.redirect_uri, c.challenge, c.resource, c.board, c.agent, c.expires_at);
  return { ok: true, board: c.board, agent: c.agent };
}

function insertTokens(tx: Tx, grantId: string, t: TokenPair): void {
  const insert = stmt(tx.db, 'INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at) VALUES (?, ?, ?, ?)');
  insert.run(t.access_hash, grantId, 'access', t.access_expires_at);
  insert.run(t.refresh_hash, grantId, 'refresh', t.refresh_expires_at);
}

const grantById = (db: Db, id: string): Grant | null => {
  const r = stmt(db, 'SELECT * FROM connector_grants WHERE id = ?').get(id) as GrantRow | undefined;
  return r ? toGrant(r) : null;
};

function revoke(tx: Tx, id: string, why: 'revoked' | 'client_deleted' | 'token_reused'): Grant | null {
  const r = stmt(
    tx.db,
    'UPDATE connector_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *',
  ).get(tx.now, id) as GrantRow | undefined;
  if (!r) return grantById(tx.db, id);
  stmt(tx.db, 'DELETE FROM oauth_tokens WHERE grant_id = ?').run(id);
  const g = toGrant(r);
  appendEvent(tx, revokedEvent(g, why));
  return g;
}

/** Spent rows are kept only while they can still be presented (reuse detection), then dropped. */
function forgetSpent(tx: Tx): void {
  // A code is kept a day after it expired: a replay within that day still revokes what it made.
  stmt(tx.db, 'DELETE FROM oauth_codes WHERE expires_at <= ?').run(tx.now - 86_400_000);
  stmt(tx.db, 'DELETE FROM oauth_tokens WHERE expires_at <= ?').run(tx.now);
}

export function redeemCode(tx: Tx, cmd: Parameters<Connectors['redeemCode']>[0]): Answer<'redeemCode'> {
  forgetSpent(tx);
  const row = stmt(tx.db, 'SELECT * FROM oauth_codes WHERE hash = ?').get(cmd.hash) as CodeRow | undefined;
  const refused = codeBeforeSpend(row, cmd);
  if (refused === 'reused') {
    return reused(row!.grant_id === null ? null : (revoke(tx, row!.grant_id, 'token_reused')?.id ?? null));
  }
  if (refused) return refused;
  // Spent whatever follows: a code that failed its checks once (a wrong verifier) is never tried again.
  stmt(tx.db, 'UPDATE oauth_codes SET used = 1 WHERE hash = ?').run(cmd.hash);
  const grant = grantOfCode(row!, cmd, getClient(tx.db, row!.client_id), tx.now);
  if ('ok' in grant) return grant;
  stmt(
    tx.db,
    `INSERT INTO connector_grants (id, client_id, client_name, board, agent, resource, created_at)
     VALUES (@id, @client_id, @client_name, @board, @agent, @resource, @created_at)`,
  ).run(grant);
  stmt(tx.db, 'UPDATE oauth_codes SET grant_id = ? WHERE hash = ?').run(grant.id, cmd.hash);
  insertTokens(tx, grant.id, cmd.tokens);
  appendEvent(tx, grantedEvent(grant));
  return { ok: true, grant };
}

export function rotateRefresh(tx: Tx, cmd: Parameters<Connectors['rotateRefresh']>[0]): Answer<'rotateRefresh'> {
  const t = stmt(tx.db, "SELECT * FROM oauth_tokens WHERE hash = ? AND kind = 'refresh'").get(cmd.hash) as
    | TokenRow
    | undefined;
  if (!t) return { ok: false, reason: 'unknown' };
  const found = grantById(tx.db, t.grant_id);
  const refused = refreshRefusal(t, found, cmd, tx.now);
  if (refused === 'reused') return reused(revoke(tx, found!.id, 'token_reused')?.id ?? null);
  if (refused) return refused;
  const grant = found!;
  // The single winning write: two rotations of one token at once — the second sees spent = 1 (above).
  stmt(tx.db, 'UPDATE oauth_tokens SET spent = 1 WHERE hash = ?').run(cmd.hash);
  // The old access tokens of the grant end with the rotation: one live pair per grant.
  stmt(tx.db, "DELETE FROM oauth_tokens WHERE grant_id = ? AND kind = 'access'").run(grant.id);
  insertTokens(tx, grant.id, cmd.tokens);
  return { ok: true, grant };
}

const ACCESS = `SELECT g.*, t.expires_at AS token_expires_at FROM oauth_tokens t JOIN connector_grants g ON g.id = t.grant_id
  JOIN oauth_clients c ON c.client_id = g.client_id
  WHERE t.hash = ? AND t.kind = 'access' AND t.expires_at > ? AND g.revoked_at IS NULL`;

export function grantOfAccessToken(db: Db, hash: string, now: number): (Grant & { token_expires_at: number }) | null {
  const r = stmt(db, ACCESS).get(hash, now) as (GrantRow & { token_expires_at: number }) | undefined;
  return accessGrant(r);
}

export function pendingConnect(db: Db, now: number): { board: string | null; agent: string | null } | null {
  const r = stmt(
    db,
    'SELECT board, agent FROM connect_codes WHERE expires_at > ? ORDER BY expires_at DESC LIMIT 1',
  ).get(now) as { board: string | null; agent: string | null } | undefined;
  return r ?? null;
}

export function touchGrant(tx: Tx, id: string): void {
  stmt(tx.db, 'UPDATE connector_grants SET last_used_at = ? WHERE id = ?').run(tx.now, id);
}

export function listGrants(db: Db): Grant[] {
  return (stmt(db, 'SELECT * FROM connector_grants ORDER BY created_at, id').all() as GrantRow[]).map(toGrant);
}

export function revokeGrant(tx: Tx, cmd: { id: string; delete_client: boolean }): Grant | null {
  const g = grantById(tx.db, cmd.id);
  if (!g) return null;
  if (!cmd.delete_client) return revoke(tx, g.id, 'revoked');
  const all = stmt(tx.db, 'SELECT id FROM connector_grants WHERE client_id = ?').all(g.client_id) as { id: string }[];
  for (const { id } of all) revoke(tx, id, 'client_deleted');
  stmt(tx.db, 'DELETE FROM oauth_codes WHERE client_id = ?').run(g.client_id);
  stmt(tx.db, 'DELETE FROM oauth_clients WHERE client_id = ?').run(g.client_id);
  return grantById(tx.db, g.id);
}
