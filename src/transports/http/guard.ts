/**
 * DNS-rebinding and cross-site defence, then the bearer token (SPEC §4).
 * Runs on every request before the body is read.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CoordError } from '../../core/errors.js';
import { sendError } from './errors.js';

export interface GuardOptions {
  token: string;
  /** Read at request time: the port is known only after listen (port 0). */
  port: () => number;
  extraHosts: string[];
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

export function makeGuard(opts: GuardOptions) {
  const tokenBuf = Buffer.from(opts.token);
  const authorized = (header: string | undefined): boolean => {
    if (!header?.startsWith('Bearer ')) return false;
    const given = Buffer.from(header.slice(7).trim());
    return given.length === tokenBuf.length && timingSafeEqual(given, tokenBuf);
  };
  return async function guard(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const port = opts.port();
    const hosts = [...LOOPBACK.map((h) => `${h}:${port}`), ...opts.extraHosts];
    const host = req.headers.host ?? '';
    if (!hosts.includes(host)) {
      sendError(reply, new CoordError('forbidden_host', `Host "${host}" is not allowed; use 127.0.0.1:${port}`));
      return reply;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.some((h) => origin === `http://${h}`)) {
      sendError(reply, new CoordError('forbidden_origin', `Origin "${origin}" may not call this daemon`));
      return reply;
    }
    const path = req.url.split('?')[0] ?? '';
    const needsToken = (path.startsWith('/v1/') && path !== '/v1/health') || path === '/mcp';
    if (needsToken && !authorized(req.headers.authorization)) {
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
