/**
 * DNS-rebinding and cross-site defence, then the bearer token (SPEC §4).
 * Runs on every request before the body is read.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The routes that answer without the token. Everything else needs it, judged by the route the
 * router matched and not by the raw URL: `/%761/tasks` routes to `/v1/tasks` (the router decodes
 * percent escapes), so a prefix test on `req.url` would let it through without a token.
 */
const PUBLIC_ROUTES: ReadonlySet<string> = new Set([HEALTH_URL, '/', '/ui/:name']);

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Compare digests, not the strings: both sides are always 32 bytes, so neither a wrong length nor a
 * matching prefix answers faster than any other wrong token.
 */
export function tokenMatcher(token: string): (header: string | undefined) => boolean {
  // An empty token (a truncated token file) must never make `Bearer ` a key to the board.
  if (token.trim() === '') throw new Error('the daemon token is empty');
  const expected = digest(token);
  return (header) => {
    // The auth scheme is case-insensitive (RFC 9110 §11.1): `bearer x` is the same credential.
    const m = /^bearer +(\S+) *$/i.exec(header ?? '');
    return m?.[1] !== undefined && timingSafeEqual(digest(m[1]), expected);
  };
}

export function makeGuard(opts: GuardOptions) {
  const authorized = tokenMatcher(opts.token);
  return async function guard(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const port = opts.port();
    const hosts = [...LOOPBACK.map((h) => `${h}:${port}`), ...opts.extraHosts];
    const host = req.headers.host ?? '';
    // Refusals are logged at debug with what was refused, never with the Authorization header.
    if (!hosts.includes(host)) {
      req.log.debug({ host, url: req.url }, 'refused: Host not allowed');
      sendError(reply, new CoordError('forbidden_host', `Host "${host}" is not allowed; use 127.0.0.1:${port}`));
      return reply;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`)) {
      req.log.debug({ origin, url: req.url }, 'refused: Origin not allowed');
      sendError(reply, new CoordError('forbidden_origin', `Origin "${origin}" may not call this daemon`));
      return reply;
    }
    // A URL no route matches (routeOptions.url undefined) needs the token too: it answers 404 only to its holder.
    const route = req.routeOptions.url;
    if (!(route !== undefined && PUBLIC_ROUTES.has(route)) && !authorized(req.headers.authorization)) {
      req.log.debug({ url: req.url, sent: req.headers.authorization !== undefined }, 'refused: missing or wrong token');
      sendError(
        reply,
        new CoordError(
          'unauthorized',
          'missing or wrong bearer token — send Authorization: Bearer <token from <state>/token>',
        ),
      );
      return reply;
    }
  };
}
