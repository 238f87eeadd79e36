/**
 * The token endpoint (OAuth 2.1 §3.2): the authorization code with its PKCE verifier, or a refresh token,
 * for an access token (1 h) and a new refresh token. The client authenticates as it registered.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Grant, OAuthClientRecord, TokenPair } from '../../core/connectors/connector-ports.js';
import { invoke } from '../../core/invoke.js';
import { oauthClient, redeemCode, rotateRefresh, sameSecret } from '../../core/ops/connector-grants.js';
import { secretHash } from '../../core/ops/connectors.js';
import type { OAuthEdge } from './edge.js';
import { oauthError } from './oauth-reply.js';
import { newGrantId, newSecret } from './secrets.js';

export const ACCESS_TTL_MS = 3600_000;
export const REFRESH_TTL_MS = 30 * 24 * 3600_000;
export const SCOPE = 'coord';

type Body = Partial<Record<string, string>>;

/** client_secret_basic, client_secret_post or none, as the client registered; null = invalid_client. */
async function authenticate(edge: OAuthEdge, req: FastifyRequest, body: Body): Promise<OAuthClientRecord | null> {
  let id = body.client_id;
  let secret = body.client_secret;
  const basic = /^basic +(\S+)$/i.exec(req.headers.authorization ?? '');
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString();
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    try {
      // RFC 6749 §2.3.1: both halves are form-urlencoded before the Base64.
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      return null;
    }
  }
  if (!id) return null;
  const { client } = await invoke(oauthClient, edge.ctx, { client_id: id });
  if (!client) return null;
  if (client.secret_hash === null) return client;
  return secret !== undefined && sameSecret(secretHash(secret), client.secret_hash) ? client : null;
}

function newPair(now: number): { access: string; refresh: string; pair: TokenPair } {
  const access = newSecret('cat');
  const refresh = newSecret('crt');
  return {
    access,
    refresh,
    pair: {
      access_hash: secretHash(access),
      access_expires_at: now + ACCESS_TTL_MS,
      refresh_hash: secretHash(refresh),
      refresh_expires_at: now + REFRESH_TTL_MS,
    },
  };
}

const issued = (reply: FastifyReply, t: { access: string; refresh: string }) =>
  reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send({
    access_token: t.access,
    token_type: 'Bearer',
    expires_in: ACCESS_TTL_MS / 1000,
    refresh_token: t.refresh,
    scope: SCOPE,
  });

const SPENT: Record<string, string> = {
  unknown: 'unknown or revoked',
  expired: 'expired',
  wrong_client: 'issued to another client',
  reused: 'already used: the grant it made is revoked',
};

export async function tokenEndpoint(edge: OAuthEdge, req: FastifyRequest, reply: FastifyReply) {
  const body = (req.body ?? {}) as Body;
  const client = await authenticate(edge, req, body);
  if (!client) {
    // 401 so the host registers again (SPEC §16); Basic asked for when the client tried it.
    return oauthError(reply, 401, 'invalid_client', 'unknown client or wrong client secret: register again', {
      'www-authenticate': 'Basic realm="coord"',
    });
  }
  const wait = edge.limits.perClient.take(client.client_id, Date.now());
  if (wait !== null) {
    return oauthError(reply, 429, 'temporarily_unavailable', 'too many token requests from this client', {
      'retry-after': String(wait),
    });
  }
  const site = edge.site;
  if (body.resource !== undefined && body.resource !== site.resource) {
    return oauthError(reply, 400, 'invalid_target', `resource must be ${site.resource}`);
  }
  if (body.grant_type === 'authorization_code') return codeGrant(edge, client, body, reply);
  if (body.grant_type === 'refresh_token') return refreshGrant(edge, client, body, reply);
  return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/** `grant_type=authorization_code`: the code and its PKCE verifier for a new grant's first tokens. */
async function codeGrant(edge: OAuthEdge, client: OAuthClientRecord, body: Body, reply: FastifyReply) {
  if (!body.code) return oauthError(reply, 400, 'invalid_request', 'code is required');
  const verifier = body.code_verifier;
  if (verifier === undefined) return oauthError(reply, 400, 'invalid_request', 'code_verifier is required (PKCE)');
  const t = newPair(edge.ctx.clock.now());
  // PKCE, the redirect URI and the resource are checked against the code inside its transaction (core).
  const out = await invoke(redeemCode, edge.ctx, {
    hash: secretHash(body.code),
    client_id: client.client_id,
    grant_id: newGrantId(),
    tokens: t.pair,
    verifier,
    redirect_uri: body.redirect_uri,
    resource: edge.site.resource,
  });
  if (!out.ok) {
    const why = out.reason === 'refused' ? out.why : `authorization code ${SPENT[out.reason]}`;
    return oauthError(reply, 400, 'invalid_grant', why);
  }
  edge.log?.info({ grant: out.grant.id, agent: out.grant.agent, board: out.grant.board }, 'connector granted');
  return issued(reply, t);
}

/** `grant_type=refresh_token`: the refresh token rotated, for this site's grants only. */
async function refreshGrant(edge: OAuthEdge, client: OAuthClientRecord, body: Body, reply: FastifyReply) {
  if (!body.refresh_token) return oauthError(reply, 400, 'invalid_request', 'refresh_token is required');
  const t = newPair(edge.ctx.clock.now());
  const out = await invoke(rotateRefresh, edge.ctx, {
    hash: secretHash(body.refresh_token),
    client_id: client.client_id,
    tokens: t.pair,
  });
  if (!out.ok) {
    if (out.reason === 'reused') edge.log?.warn({ grant: out.revoked }, 'refresh token replayed: grant revoked');
    return oauthError(reply, 400, 'invalid_grant', `refresh token ${SPENT[out.reason]}`);
  }
  if (!forThisSite(out.grant, edge.site.resource)) {
    return oauthError(reply, 400, 'invalid_grant', 'the grant was made for another public URL: connect again');
  }
  return issued(reply, t);
}

/** A new `--public-url` ends the grants made for the old one (SPEC §16). */
export const forThisSite = (g: Grant, resource: string): boolean => g.resource === resource;
