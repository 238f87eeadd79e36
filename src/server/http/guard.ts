/**
 * DNS-rebinding and cross-site defence, then the bearer token (SPEC §4).
 * Runs on every request before the body is read.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { HEALTH_URL } from '../../api/routes.js';
import { CoordError } from '../../core/errors.js';
import { sendError } from './errors.js';

export interface GuardOptions {
  token: string;
  /** Read at request time: the port is known only after listen (port 0). */
  port: () => number;
  /**
   * More `host:port` values to accept, read at request time too: the daemon adds the address it
   * bound to (`--host 192.168.1.5`) once listen has told it the port.
   */
  extraHosts: readonly string[];
  /** `--public-url` (SPEC §16): its host is accepted, and requests through it reach only the OAuth edge. */
  site?: { host: string; origin: string } | undefined;
  /** The hook key (state-dir/token.ts): accepted instead of the token on the clients' hook route only. */
  hookKey?: string | undefined;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The routes that answer without the token. Everything else needs it, judged by the route the
 * router matched and not by the raw URL: `/%761/tasks` routes to `/v1/tasks` (the router decodes
 * percent escapes), so a prefix test on `req.url` would let it through without a token.
 */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set([HEALTH_URL, '/', '/ui/:name']);

/** The OAuth edge (server/oauth/): it answers without the token, locally or through the public URL. */
const isOAuthRoute = (route: string): boolean => route.startsWith('/.well-known/') || route.startsWith('/oauth/');
/** What a public request may reach (SPEC §16): /mcp (OAuth tokens only) and the OAuth edge. */
const isSiteRoute = (route: string | undefined): boolean =>
  route !== undefined && (route === '/mcp' || isOAuthRoute(route));

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * SPEC §16: the request came through `--public-url` (publicBy) and the guard let it on to /mcp or the OAuth
     * edge. Set by the guard (false until then: `decoratePublic`); /mcp then takes OAuth tokens only, and the
     * OAuth rate limits count the proxy's forwarded address.
     */
    viaPublicUrl: boolean;
  }
}

/** Every request starts local; the guard's hook marks the public ones. Called once on the root app. */
export const decoratePublic = (app: FastifyInstance): void => {
  app.decorateRequest('viaPublicUrl', false);
};

/**
 * SPEC §16: a request is public when its Host is the public host, or when it is loopback but carries any
 * X-Forwarded-* / Forwarded header — a tunnel that rewrites Host to localhost must not make a request
 * local. Never without `--public-url`.
 */
export function publicBy(site: { host: string } | undefined): (headers: IncomingHttpHeaders) => boolean {
  if (!site) return () => false;
  return (headers) => {
    if (headers.host === site.host) return true;
    for (const name in headers) if (name === 'forwarded' || name.startsWith('x-forwarded-')) return true;
    return false;
  };
}

/**
 * A constant-time compare of the token's bytes. Only a token of the right length is compared at all, so a
 * wrong length answers faster: that tells an attacker the length, which is no secret (every token is 43
 * base64url characters, docs/http-api.md), and never how much of a guess matched. (Hashing both sides to hide
 * the length cost a SHA-256 on every request.)
 */
export function tokenMatcher(token: string): (header: string | undefined) => boolean {
  // An empty token (a truncated token file) must never make `Bearer ` a key to the board.
  if (token.trim() === '') throw new Error('the daemon token is empty');
  const expected = Buffer.from(token);
  return (header) => {
    // The auth scheme is case-insensitive (RFC 9110 §11.1): `bearer x` is the same credential.
    const m = /^bearer +(\S+) *$/i.exec(header ?? '');
    const sent = m?.[1] === undefined ? undefined : Buffer.from(m[1]);
    return sent !== undefined && sent.length === expected.length && timingSafeEqual(sent, expected);
  };
}

interface Refusal {
  error: CoordError;
  /** What was refused, for the debug line: never the Authorization header. */
  seen: Record<string, unknown>;
  why: string;
}

export interface Guard {
  /** The onRequest hook: answers a refused request in coord's error shape, logged at debug. */
  hook(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
  /** Whether a request with these headers to a route that needs the token passes (the inbox's lane asks). */
  admits(headers: IncomingHttpHeaders): boolean;
}

export function makeGuard(opts: GuardOptions): Guard {
  const authorized = tokenMatcher(opts.token);
  const hookAuthorized = opts.hookKey ? tokenMatcher(opts.hookKey) : () => false;
  const site = opts.site;
  const isPublic = publicBy(site);
  // Built again only when the port or the extra hosts change (both are known only after listen).
  let hostsPort = -1;
  let hostsExtra = -1;
  let hosts: string[] = [];
  const hostRefusal = (headers: IncomingHttpHeaders, url: string): Refusal | undefined => {
    const port = opts.port();
    if (port !== hostsPort || opts.extraHosts.length !== hostsExtra) {
      hosts = [...LOOPBACK.map((h) => `${h}:${port}`), ...opts.extraHosts, ...(site ? [site.host] : [])];
      hostsPort = port;
      hostsExtra = opts.extraHosts.length;
    }
    // Compared as sent: `LOCALHOST:7777` is no spelling a real client uses (test/reliability/local-security).
    const host = headers.host ?? '';
    if (hosts.includes(host)) return undefined;
    const error = new CoordError('forbidden_host', `Host "${host}" is not allowed; use 127.0.0.1:${port}`);
    return { error, seen: { host, url }, why: 'refused: Host not allowed' };
  };
  const refusal = (
    headers: IncomingHttpHeaders,
    tokenFree: boolean,
    url: string,
    route?: string,
  ): Refusal | undefined => {
    const wrongHost = hostRefusal(headers, url);
    if (wrongHost) return wrongHost;
    const origin = headers.origin;
    // The public host is no local origin (its pages are https, and reach only the OAuth edge).
    if (origin !== undefined && !hosts.some((h) => origin === `http://${h}` && h !== site?.host)) {
      const error = new CoordError('forbidden_origin', `Origin "${origin}" may not call this daemon`);
      return { error, seen: { origin, url }, why: 'refused: Origin not allowed' };
    }
    const hookKeyed = route === PATHS.hook && hookAuthorized(headers.authorization);
    if (!tokenFree && !hookKeyed && !authorized(headers.authorization)) {
      const error = new CoordError(
        'unauthorized',
        'missing or wrong bearer token — send Authorization: Bearer <token from <state>/token>',
      );
      return {
        error,
        seen: { url, sent: headers.authorization !== undefined },
        why: 'refused: missing or wrong token',
      };
    }
    return undefined;
  };
  return {
    async hook(req, reply) {
      // A URL no route matches (routeOptions.url undefined) needs the token too: it answers 404 only to its holder.
      const route = req.routeOptions.url;
      if (isPublic(req.headers)) {
        const r = hostRefusal(req.headers, req.url) ?? siteRefusal(req, route, site?.origin ?? '');
        if (r === undefined) {
          req.viaPublicUrl = true;
          return;
        }
        req.log.debug(r.seen, r.why);
        sendError(reply, r.error);
        return reply;
      }
      const tokenFree =
        route !== undefined && (PUBLIC_ROUTES.has(route) || (site !== undefined && isOAuthRoute(route)));
      const r = refusal(req.headers, tokenFree, req.url, route);
      if (r === undefined) return;
      req.log.debug(r.seen, r.why);
      sendError(reply, r.error);
      return reply;
    },
    // The inbox lane answers local requests only: a public one goes to fastify, which answers it 404.
    admits: (headers) => !isPublic(headers) && refusal(headers, false, '') === undefined,
  };
}

/**
 * A public request: only /mcp and the OAuth edge exist, and any other path is the same 404 as a path that
 * does not exist, token or not (no hint that /v1 is there). A browser may post only from the public origin.
 */
function siteRefusal(req: FastifyRequest, route: string | undefined, origin: string): Refusal | undefined {
  const { headers, url } = req;
  if (!isSiteRoute(route)) {
    // The not-found handler's very words (app.ts), so a local-only path reads like a path that does not exist.
    const error = new CoordError('not_found', `no route ${req.method} ${url.split('?')[0]}`);
    return { error, seen: { url }, why: 'public: local only' };
  }
  if (headers.origin !== undefined && headers.origin !== origin) {
    const error = new CoordError('forbidden_origin', `Origin "${headers.origin}" may not call this daemon`);
    return { error, seen: { origin: headers.origin, url }, why: 'refused: Origin not allowed' };
  }
  return undefined;
}
