/** Remote connectors (SPEC §16), the twin of sqlite/connectors.ts. Rows are locked FOR UPDATE where one caller must win. */
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
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const UNUSED =
  'FROM oauth_clients WHERE NOT EXISTS (SELECT 1 FROM connector_grants g WHERE g.client_id = oauth_clients.client_id)';

export async function registerClient(
  tx: Tx,
  c: Omit<OAuthClientRecord, 'created_at'>,
  maxUnused: number,
): Promise<OAuthClientRecord | null> {
  // One registration at a time: two at once must not both pass the count.
  await rows(tx.db, "SELECT pg_advisory_xact_lock(hashtext('coord.oauth_clients'), hashtext(current_schema()))");
  await rows(tx.db, `DELETE ${UNUSED} AND created_at <= @t::bigint`, { t: tx.now - UNUSED_CLIENT_TTL_MS });
  const unused = await row<{ n: number }>(tx.db, `SELECT count(*)::int AS n ${UNUSED}`);
  if ((unused?.n ?? 0) >= maxUnused) return null;
  await rows(
    tx.db,
    `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, metadata, created_at)
     VALUES (@client_id, @secret_hash, @name, @redirect_uris, @metadata, @now::bigint)`,
    {
      ...c,
      redirect_uris: JSON.stringify(c.redirect_uris),
      metadata: JSON.stringify(c.metadata),
      now: tx.now,
    },
  );
  return { ...c, created_at: tx.now };
}

export async function getClient(db: Queryable, clientId: string): Promise<OAuthClientRecord | null> {
  const r = await row<ClientRow>(db, 'SELECT * FROM oauth_clients WHERE client_id = @id', { id: clientId });
  return r ? toClient(r) : null;
}

export async function addConnectCode(
  tx: Tx,
  c: { hash: string; board: string | null; agent: string | null; expires_at: number },
): Promise<void> {
  await rows(tx.db, 'DELETE FROM connect_codes WHERE expires_at <= @now::bigint', { now: tx.now });
  await rows(
    tx.db,
    'INSERT INTO connect_codes (hash, board, agent, expires_at) VALUES (@hash, @board, @agent, @expires_at::bigint)',
    c,
  );
}

export async function approve(tx: Tx, cmd: Parameters<Connectors['approve']>[0]): Promise<Answer<'approve'>> {
  let spent: { board: string | null; agent: string | null } | undefined;
  if (cmd.connect_hash !== null) {
    spent = await row<{ board: string | null; agent: string | null }>(
      tx.db,
      'DELETE FROM connect_codes WHERE hash = @hash AND expires_at > @now::bigint RETURNING board, agent',
      { hash: cmd.connect_hash, now: tx.now },
    );
    if (!spent) {
      // A wrong answer: every live code is one guess closer to being spent (SPEC §16).
      await rows(tx.db, 'UPDATE connect_codes SET wrong = wrong + 1 WHERE expires_at > @now::bigint', { now: tx.now });
      await rows(tx.db, 'DELETE FROM connect_codes WHERE wrong >= @max::int', { max: CONNECT_CODE_MAX_WRONG });
      return { ok: false };
    }
  }
  const c = approvedCode(cmd, spent ?? null);
  await rows(
    tx.db,
    `INSERT INTO oauth_codes (hash, client_id, redirect_uri, challenge, resource, board, agent, expires_at)
     VALUES (@hash, @client_id, @redirect_uri, @challenge, @resource, @board, @agent, @expires_at::bigint)`,
    c,
  );
  return { ok: true, board: c.board, agent: c.agent };
}

async function insertTokens(tx: Tx, grantId: string, t: TokenPair): Promise<void> {
  await rows(
    tx.db,
    `INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at)
     VALUES (@access_hash, @grant_id, 'access', @access_expires_at::bigint),
            (@refresh_hash, @grant_id, 'refresh', @refresh_expires_at::bigint)`,
    { ...t, grant_id: grantId },
  );
}

const grantById = async (db: Queryable, id: string): Promise<Grant | null> => {
  const r = await row<GrantRow>(db, 'SELECT * FROM connector_grants WHERE id = @id', { id });
  return r ? toGrant(r) : null;
};

async function revoke(tx: Tx, id: string, why: 'revoked' | 'client_deleted' | 'token_reused'): Promise<Grant | null> {
  const r = await row<GrantRow>(
    tx.db,
    'UPDATE connector_grants SET revoked_at = @now::bigint WHERE id = @id AND revoked_at IS NULL RETURNING *',
    { id, now: tx.now },
  );
  if (!r) return grantById(tx.db, id);
  await rows(tx.db, 'DELETE FROM oauth_tokens WHERE grant_id = @id', { id });
  const g = toGrant(r);
  appendEvent(tx, revokedEvent(g, why));
  return g;
}

/** Spent rows are kept only while they can still be presented (reuse detection), then dropped. */
async function forgetSpent(tx: Tx): Promise<void> {
  // A code is kept a day after it expired: a replay within that day still revokes what it made.
  await rows(tx.db, 'DELETE FROM oauth_codes WHERE expires_at <= @t::bigint', { t: tx.now - 86_400_000 });
  await rows(tx.db, 'DELETE FROM oauth_tokens WHERE expires_at <= @t::bigint', { t: tx.now });
}

export async function redeemCode(tx: Tx, cmd: Parameters<Connectors['redeemCode']>[0]): Promise<Answer<'redeemCode'>> {
  await forgetSpent(tx);
  const r = await row<CodeRow>(tx.db, 'SELECT * FROM oauth_codes WHERE hash = @hash FOR UPDATE', { hash: cmd.hash });
  const refused = codeBeforeSpend(r, cmd);
  if (refused === 'reused') {
    return reused(r!.grant_id && ((await revoke(tx, r!.grant_id, 'token_reused'))?.id ?? null));
  }
  if (refused) return refused;
  await rows(tx.db, 'UPDATE oauth_codes SET used = true WHERE hash = @hash', { hash: cmd.hash });
  const grant = grantOfCode(r!, cmd, await getClient(tx.db, r!.client_id), tx.now);
  if ('ok' in grant) return grant;
  await rows(
    tx.db,
    `INSERT INTO connector_grants (id, client_id, client_name, board, agent, resource, created_at)
     VALUES (@id, @client_id, @client_name, @board, @agent, @resource, @created_at::bigint)`,
    grant,
  );
  await rows(tx.db, 'UPDATE oauth_codes SET grant_id = @id WHERE hash = @hash', { id: grant.id, hash: cmd.hash });
  await insertTokens(tx, grant.id, cmd.tokens);
  appendEvent(tx, grantedEvent(grant));
  return { ok: true, grant };
}

export async function rotateRefresh(
  tx: Tx,
  cmd: Parameters<Connectors['rotateRefresh']>[0],
): Promise<Answer<'rotateRefresh'>> {
  const t = await row<TokenRow>(
    tx.db,
    "SELECT * FROM oauth_tokens WHERE hash = @hash AND kind = 'refresh' FOR UPDATE",
    {
      hash: cmd.hash,
    },
  );
  if (!t) return { ok: false, reason: 'unknown' };
  const found = await grantById(tx.db, t.grant_id);
  const refused = refreshRefusal(t, found, cmd, tx.now);
  if (refused === 'reused') return reused((await revoke(tx, found!.id, 'token_reused'))?.id ?? null);
  if (refused) return refused;
  const grant = found!;
  await rows(tx.db, 'UPDATE oauth_tokens SET spent = true WHERE hash = @hash', { hash: cmd.hash });
  await rows(tx.db, "DELETE FROM oauth_tokens WHERE grant_id = @id AND kind = 'access'", { id: grant.id });
  await insertTokens(tx, grant.id, cmd.tokens);
  return { ok: true, grant };
}

export async function grantOfAccessToken(
  db: Queryable,
  hash: string,
  now: number,
): Promise<(Grant & { token_expires_at: number }) | null> {
  const r = await row<GrantRow & { token_expires_at: number }>(
    db,
    `SELECT g.*, t.expires_at AS token_expires_at FROM oauth_tokens t JOIN connector_grants g ON g.id = t.grant_id
     JOIN oauth_clients c ON c.client_id = g.client_id
     WHERE t.hash = @hash AND t.kind = 'access' AND t.expires_at > @now::bigint AND g.revoked_at IS NULL`,
    { hash, now },
  );
  return accessGrant(r);
}

export async function pendingConnect(
  db: Queryable,
  now: number,
): Promise<{ board: string | null; agent: string | null } | null> {
  const r = await row<{ board: string | null; agent: string | null }>(
    db,
    'SELECT board, agent FROM connect_codes WHERE expires_at > @now::bigint ORDER BY expires_at DESC LIMIT 1',
    { now },
  );
  return r ?? null;
}

export async function touchGrant(tx: Tx, id: string): Promise<void> {
  await rows(tx.db, 'UPDATE connector_grants SET last_used_at = @now::bigint WHERE id = @id', { id, now: tx.now });
}

export async function listGrants(db: Queryable): Promise<Grant[]> {
  return (await rows<GrantRow>(db, 'SELECT * FROM connector_grants ORDER BY created_at, id')).map(toGrant);
}

export async function revokeGrant(tx: Tx, cmd: { id: string; delete_client: boolean }): Promise<Grant | null> {
  const g = await grantById(tx.db, cmd.id);
  if (!g) return null;
  if (!cmd.delete_client) return revoke(tx, g.id, 'revoked');
  const all = await rows<{ id: string }>(tx.db, 'SELECT id FROM connector_grants WHERE client_id = @c ORDER BY id', {
    c: g.client_id,
  });
  for (const { id } of all) await revoke(tx, id, 'client_deleted');
  await rows(tx.db, 'DELETE FROM oauth_codes WHERE client_id = @c', { c: g.client_id });
  await rows(tx.db, 'DELETE FROM oauth_clients WHERE client_id = @c', { c: g.client_id });
  return grantById(tx.db, g.id);
}
