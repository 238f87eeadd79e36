/**
 * Remote connectors (SPEC §16) of both stores: OAuth clients, codes, grants and tokens — hashes only. The logic
 * once, as programs (program.ts); the statements in connectors-sql.ts, each store's own in `<store>/connectors-sql.ts`.
 * Where one caller must win, the winning statement is conditional (a code spent twice at once is deleted once)
 * and PostgreSQL's reads lock their row FOR UPDATE.
 */
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
  needsTouch,
  revokedEvent,
  type TokenRow,
  toClient,
  toGrant,
} from './connector-rows.js';
import {
  type Answer,
  accessGrant,
  approvedCode,
  codeBeforeSpend,
  grantOfCode,
  refreshRefusal,
  reused,
} from './connector-rules.js';
import type { ConnectorsSql } from './connectors-sql.js';
import { all, emit, get, type Prog, type Q, type Runner, run } from './program.js';

type W = Q<ConnectorsSql>;
type Board = { board: string | null; agent: string | null };

function* registerClient(q: W, c: Omit<OAuthClientRecord, 'created_at'>, max: number): Prog<OAuthClientRecord | null> {
  // One registration at a time: two at once must not both pass the count.
  yield* run(q.sql.serialiseRegistration);
  yield* run(q.sql.deleteUnusedClients, { t: q.now - UNUSED_CLIENT_TTL_MS });
  const unused = yield* get<{ n: number }>(q.sql.countUnusedClients);
  if ((unused?.n ?? 0) >= max) return null;
  const json = { redirect_uris: JSON.stringify(c.redirect_uris), metadata: JSON.stringify(c.metadata) };
  yield* run(q.sql.insertClient, { ...c, ...json, now: q.now });
  return { ...c, created_at: q.now };
}

function* getClient(sql: ConnectorsSql, id: string): Prog<OAuthClientRecord | null> {
  const r = yield* get<ClientRow>(sql.clientById, { id });
  return r ? toClient(r) : null;
}

function* addConnectCode(q: W, c: Board & { hash: string; expires_at: number }): Prog<void> {
  // Expired codes go as new ones come: the table holds only codes that can still be spent.
  yield* run(q.sql.deleteExpiredConnectCodes, { now: q.now });
  yield* run(q.sql.insertConnectCode, c);
}

function* approve(q: W, cmd: Parameters<Connectors['approve']>[0]): Prog<Answer<'approve'>> {
  let spent: Board | undefined;
  if (cmd.connect_hash !== null) {
    // The single winning statement: a code spent twice at once is deleted once.
    spent = yield* get<Board>(q.sql.spendConnectCode, { hash: cmd.connect_hash, now: q.now });
    if (!spent) {
      // A wrong answer: every live code is one guess closer to being spent (SPEC §16).
      yield* run(q.sql.wrongGuess, { now: q.now });
      yield* run(q.sql.deleteGuessedOut, { max: CONNECT_CODE_MAX_WRONG });
      return { ok: false };
    }
  }
  const c = approvedCode(cmd, spent ?? null);
  yield* run(q.sql.insertCode, c);
  return { ok: true, board: c.board, agent: c.agent };
}

function* grantById(sql: ConnectorsSql, id: string): Prog<Grant | null> {
  const r = yield* get<GrantRow>(sql.grantById, { id });
  return r ? toGrant(r) : null;
}

function* revoke(q: W, id: string, why: 'revoked' | 'client_deleted' | 'token_reused'): Prog<Grant | null> {
  const r = yield* get<GrantRow>(q.sql.revokeGrant, { id, now: q.now });
  if (!r) return yield* grantById(q.sql, id);
  yield* run(q.sql.deleteGrantTokens, { id });
  const g = toGrant(r);
  yield* emit(revokedEvent(g, why));
  return g;
}

function* redeemCode(q: W, cmd: Parameters<Connectors['redeemCode']>[0]): Prog<Answer<'redeemCode'>> {
  // Spent rows are kept only while they can still be presented (reuse detection), then dropped; a code a day
  // after it expired: a replay within that day still revokes what it made.
  yield* run(q.sql.deleteOldCodes, { t: q.now - 86_400_000 });
  yield* run(q.sql.deleteExpiredTokens, { now: q.now });
  const row = yield* get<CodeRow>(q.sql.codeByHash, { hash: cmd.hash });
  const refused = codeBeforeSpend(row, cmd);
  if (refused === 'reused') {
    return reused(row!.grant_id === null ? null : ((yield* revoke(q, row!.grant_id, 'token_reused'))?.id ?? null));
  }
  if (refused) return refused;
  // Spent whatever follows: a code that failed its checks once (a wrong verifier) is never tried again.
  yield* run(q.sql.spendCode, { hash: cmd.hash });
  const grant = grantOfCode(row!, cmd, yield* getClient(q.sql, row!.client_id), q.now);
  if ('ok' in grant) return grant;
  yield* run(q.sql.insertGrant, grant);
  yield* run(q.sql.linkCode, { id: grant.id, hash: cmd.hash });
  yield* run(q.sql.insertTokens, tokens(grant.id, cmd.tokens));
  yield* emit(grantedEvent(grant));
  return { ok: true, grant };
}

const tokens = (grant_id: string, t: TokenPair) => ({ ...t, grant_id });

function* rotateRefresh(q: W, cmd: Parameters<Connectors['rotateRefresh']>[0]): Prog<Answer<'rotateRefresh'>> {
  const t = yield* get<TokenRow>(q.sql.refreshToken, { hash: cmd.hash });
  if (!t) return { ok: false, reason: 'unknown' };
  const found = yield* grantById(q.sql, t.grant_id);
  const refused = refreshRefusal(t, found, cmd, q.now);
  if (refused === 'reused') return reused((yield* revoke(q, found!.id, 'token_reused'))?.id ?? null);
  if (refused) return refused;
  const grant = found!;
  // The single winning write: two rotations of one token at once — the second sees it spent (above).
  yield* run(q.sql.spendToken, { hash: cmd.hash });
  // The old access tokens of the grant end with the rotation: one live pair per grant.
  yield* run(q.sql.deleteAccessTokens, { id: grant.id });
  yield* run(q.sql.insertTokens, tokens(grant.id, cmd.tokens));
  return { ok: true, grant };
}

function* revokeGrant(q: W, cmd: { id: string; delete_client: boolean }): Prog<Grant | null> {
  const g = yield* grantById(q.sql, cmd.id);
  if (!g) return null;
  if (!cmd.delete_client) return yield* revoke(q, g.id, 'revoked');
  for (const { id } of yield* all<{ id: string }>(q.sql.clientGrants, { c: g.client_id })) {
    yield* revoke(q, id, 'client_deleted');
  }
  yield* run(q.sql.deleteClientCodes, { c: g.client_id });
  yield* run(q.sql.deleteClient, { c: g.client_id });
  return yield* grantById(q.sql, g.id);
}

type Access = (Grant & { token_expires_at: number }) | null;

/** The port (core/connectors/connector-ports.ts) over a store's runner. */
export const connectorsPort = (r: Runner<ConnectorsSql>): Connectors => ({
  registerClient: (c, max) => r.write((q) => registerClient(q, c, max)),
  getClient: (id) => r.read((sql) => getClient(sql, id)),
  addConnectCode: (c) => r.write((q) => addConnectCode(q, c)),
  approve: (cmd) => r.write((q) => approve(q, cmd)),
  redeemCode: (cmd) => r.write((q) => redeemCode(q, cmd)),
  rotateRefresh: (cmd) => r.write((q) => rotateRefresh(q, cmd)),
  async grantOfAccessToken(hash) {
    const now = await r.now();
    const grant = await r.read(function* (sql): Prog<Access> {
      return accessGrant(yield* get<GrantRow & { token_expires_at: number }>(sql.accessGrant, { hash, now }));
    });
    if (grant && needsTouch(grant, now)) {
      await r.write((q) => run(q.sql.touchGrant, { id: grant.id, now: q.now }));
    }
    return grant;
  },
  listGrants: () =>
    r.read(function* (sql) {
      return (yield* all<GrantRow>(sql.listGrants)).map(toGrant);
    }),
  async pendingConnect() {
    const now = await r.now();
    return r.read(function* (sql) {
      return (yield* get<Board>(sql.pendingConnect, { now })) ?? null;
    });
  },
  revokeGrant: (cmd) => r.write((q) => revokeGrant(q, cmd)),
});
