/**
 * Rate limits of the OAuth edge (SPEC §16): per client and per address, a fixed window each. A refusal is
 * 429 with `Retry-After`: the seconds until the window ends.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';

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
 * loopback, the address that proxy appended: the LAST `X-Forwarded-For` entry (else the last `Forwarded:
 * for=`). Every earlier entry is whatever the caller sent, and rotating it must not buy a fresh limit
 * (SPEC §16).
 */
export function clientAddress(req: FastifyRequest): string {
  const socket = req.raw.socket.remoteAddress ?? '';
  const loopback = socket === '127.0.0.1' || socket === '::1' || socket === '::ffff:127.0.0.1';
  if (!loopback || !req.viaPublicUrl) return socket;
  return forwardedFor(req.headers) ?? socket;
}

/** The proxy's own entry: the last of every `X-Forwarded-For` line (Node joins repeated ones with ", "). */
export function forwardedFor(headers: IncomingHttpHeaders): string | undefined {
  const xff = headers['x-forwarded-for'];
  const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').at(-1)?.trim();
  if (last) return last;
  const fwd = headers.forwarded;
  const all = [...(Array.isArray(fwd) ? fwd.join(',') : (fwd ?? '')).matchAll(/(?:^|[;,\s])for="?([^";,\s]+)"?/gi)];
  return all.at(-1)?.[1];
}
