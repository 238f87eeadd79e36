/**
 * Rate limits of the OAuth edge (SPEC §16): per client and per address, a fixed window each. A refusal is
 * 429 with `Retry-After`: the seconds until the window ends.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { isPublicRequest } from '../http/guard.js';

export class RateLimit {
  private window = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one request for `key`: null when it may go on, else the seconds to wait. */
  take(key: string, now: number): number | null {
    const w = Math.floor(now / this.windowMs);
    // A new window forgets the old one at once: the map never holds more than one window's keys.
    if (w !== this.window) {
      this.window = w;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n <= this.limit ? null : Math.max(1, Math.ceil(((w + 1) * this.windowMs - now) / 1000));
  }
}

/**
 * Who is asking: the socket's address — or, for a request through the public URL arriving from a proxy on
 * loopback, the first `X-Forwarded-For` / `Forwarded: for=` address (the proxy's client).
 */
export function clientAddress(req: FastifyRequest): string {
  const socket = req.raw.socket.remoteAddress ?? '';
  const loopback = socket === '127.0.0.1' || socket === '::1' || socket === '::ffff:127.0.0.1';
  if (!loopback || !isPublicRequest(req)) return socket;
  return forwardedFor(req.headers) ?? socket;
}

export function forwardedFor(headers: IncomingHttpHeaders): string | undefined {
  const xff = headers['x-forwarded-for'];
  const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
  if (first) return first;
  const fwd = headers.forwarded;
  const m = /(?:^|[;,\s])for="?([^";,\s]+)"?/i.exec(Array.isArray(fwd) ? (fwd[0] ?? '') : (fwd ?? ''));
  return m?.[1];
}
