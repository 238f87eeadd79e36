/**
 * The OAuth edge (SPEC §16): coord is its own authorization server for the one resource it protects, its
 * public `/mcp`. The MCP SDK gives the resource-server half (protected resource metadata, the bearer
 * check and its challenge: bearer.ts); the authorization-server half — registration, consent, codes,
 * tokens — is here, small, over the store's connector tables (docs/connectors.md says why).
 */
import type { OAuthMetadata } from '@modelcontextprotocol/server';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { registerOAuthClient } from '../../core/ops/connector-grants.js';
import { secretHash } from '../../core/ops/connectors.js';
import { authorizeGet, authorizePost } from './authorize.js';
import { oauthError } from './oauth-reply.js';
import type { PublicSite } from './public-site.js';
import { clientAddress, RateLimit } from './rate-limit.js';
import { checkRegistration, REGISTRATION_LIMIT } from './registration.js';
import { newClientId, newSecret } from './secrets.js';
import { SCOPE, tokenEndpoint } from './token.js';

export interface OAuthEdge {
  ctx: Ctx;
  site: PublicSite;
  /** The dashboard's token: it approves a consent as well as a `coord connect` code does. */
  token: string;
  log?: Logger | undefined;
  /** Registrations that have not led to a grant yet, at most (default MAX_UNUSED_CLIENTS). */
  maxUnusedClients?: number;
  limits: {
    /** Every OAuth request, per address (SPEC §16). */
    perAddress: RateLimit;
    /** Token requests, per client. */
    perClient: RateLimit;
    /** Consent answers, per address: the one-time code must not be guessed. */
    consent: RateLimit;
  };
}

/**
 * Anyone who reaches the public URL can register a client: at most this many wait for a grant at once (each
 * is dropped a day after it registered unless it led to a grant). A person connects a handful of hosts.
 */
export const MAX_UNUSED_CLIENTS = 200;

/** Per minute. A chat host's whole connection is about ten requests; a person retries a code a few times. */
export const defaultLimits = (): OAuthEdge['limits'] => ({
  perAddress: new RateLimit(120),
  perClient: new RateLimit(30),
  consent: new RateLimit(10),
});

export function authServerMetadata(site: PublicSite): OAuthMetadata {
  return {
    issuer: site.url,
    authorization_endpoint: `${site.url}/oauth/authorize`,
    token_endpoint: `${site.url}/oauth/token`,
    registration_endpoint: `${site.url}/oauth/register`,
    scopes_supported: [SCOPE],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
  };
}

export function registerOAuth(app: FastifyInstance, edge: OAuthEdge): void {
  const asMetadata = authServerMetadata(edge.site);

  app.register(async (scope) => {
    // The SDK builds RFC 9728's document (and checks the issuer is https) from the same metadata. Loaded
    // here, not at the top: a daemon without --public-url never loads the MCP SDK at start (issue 15).
    const { buildOAuthProtectedResourceMetadata } = await import('@modelcontextprotocol/server');
    const prMetadata = buildOAuthProtectedResourceMetadata({
      oauthMetadata: asMetadata,
      resourceServerUrl: new URL(edge.site.resource),
      scopesSupported: [SCOPE],
      resourceName: 'coord',
    });
    // Forms here (RFC 6749 §4.1.3, the consent page) and JSON at /oauth/register, in this scope only.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      const params = new URLSearchParams(String(body));
      const out: Record<string, string> = {};
      for (const [k, v] of params) {
        // RFC 6749 §3.1: a parameter sent twice is an invalid request, not a choice between two values.
        if (k in out) return done(oauthBodyError(`parameter ${k} is repeated`), undefined);
        out[k] = v;
      }
      done(null, out);
    });
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, JSON.parse(String(body)));
      } catch {
        done(oauthBodyError('the body is not valid JSON'), undefined);
      }
    });
    scope.setErrorHandler((err: FastifyError, req, reply) => {
      const register = req.routeOptions.url === '/oauth/register';
      if (err.statusCode === 413) {
        return oauthError(
          reply,
          413,
          register ? 'invalid_client_metadata' : 'invalid_request',
          'the body is too large',
        );
      }
      if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return oauthError(
          reply,
          400,
          register ? 'invalid_client_metadata' : 'invalid_request',
          'unsupported content type',
        );
      }
      if (err.statusCode !== undefined && err.statusCode < 500) {
        return oauthError(reply, 400, register ? 'invalid_client_metadata' : 'invalid_request', err.message);
      }
      edge.log?.error({ err }, 'OAuth request failed');
      return oauthError(reply, 500, 'server_error', 'internal error');
    });
    scope.addHook('onRequest', async (req, reply) => {
      const wait = edge.limits.perAddress.take(clientAddress(req), Date.now());
      if (wait === null) return;
      return oauthError(reply, 429, 'temporarily_unavailable', 'too many requests from this address', {
        'retry-after': String(wait),
      });
    });

    const prm = async () => prMetadata;
    scope.get('/.well-known/oauth-protected-resource', prm);
    scope.get('/.well-known/oauth-protected-resource/*', prm);
    const asm = async () => asMetadata;
    scope.get('/.well-known/oauth-authorization-server', asm);
    scope.get('/.well-known/oauth-authorization-server/*', asm);

    scope.post('/oauth/register', { bodyLimit: REGISTRATION_LIMIT }, async (req, reply) => {
      const checked = checkRegistration(req.body);
      if (!checked.ok) return oauthError(reply, 400, checked.error, checked.description);
      const m = checked.metadata;
      const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
      const secret = method === 'none' ? null : newSecret('ccs');
      const { client } = await invoke(registerOAuthClient, edge.ctx, {
        client_id: newClientId(),
        secret_hash: secret === null ? null : secretHash(secret),
        name: m.client_name?.trim() || new URL(m.redirect_uris[0] ?? 'https://unknown').host,
        redirect_uris: m.redirect_uris,
        metadata: { ...m, token_endpoint_auth_method: method },
        max_unused: edge.maxUnusedClients ?? MAX_UNUSED_CLIENTS,
      });
      if (!client) {
        return oauthError(reply, 429, 'temporarily_unavailable', 'too many registrations wait for approval', {
          'retry-after': '3600',
        });
      }
      edge.log?.info({ client: client.client_id, name: client.name }, 'OAuth client registered');
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({
          ...client.metadata,
          client_id: client.client_id,
          client_id_issued_at: Math.floor(client.created_at / 1000),
          ...(secret === null ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
        });
    });

    scope.get('/oauth/authorize', (req, reply) => authorizeGet(edge, req, reply));
    scope.post('/oauth/authorize', async (req, reply) => {
      const wait = edge.limits.consent.take(clientAddress(req), Date.now());
      if (wait !== null) {
        return oauthError(reply, 429, 'temporarily_unavailable', 'too many consent answers from this address', {
          'retry-after': String(wait),
        });
      }
      return authorizePost(edge, req, reply);
    });
    scope.post('/oauth/token', { bodyLimit: 16 * 1024 }, (req, reply) => tokenEndpoint(edge, req, reply));
  });
}

function oauthBodyError(message: string): Error {
  return Object.assign(new Error(message), { statusCode: 400 });
}
