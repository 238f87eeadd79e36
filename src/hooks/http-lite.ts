/**
 * One HTTP/1.1 request to the local daemon over node:net, for the command hooks: node:http costs a hook
 * ~7 ms of loading (its client, agent, server and parser modules, on every edit), node:net is loaded anyway
 * for the hook's stdin pipe. One request per connection (`Connection: close`): a hook makes one to three calls.
 * The request carries its body with Content-Length; the answer is read by its Content-Length, chunked, or to
 * the connection's end. Informational (1xx) answers are skipped.
 */
import { connect, type Socket } from 'node:net';

export interface Exchange {
  method: string;
  /** The daemon's origin, `http://127.0.0.1:7777`. */
  origin: string;
  /** The path and query. */
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Give up after this long: `timeout`. */
  waitMs: number;
}

export type Sent =
  | { answer: { status: number; body: string } }
  /** refused: nothing listens there (the daemon is gone); error: anything else on the way, or an answer cut short. */
  | { failed: 'refused' | 'error' | 'timeout' };

/** Errors that say nothing listens there. */
const REFUSED = new Set(['ECONNREFUSED', 'ENOENT', 'EADDRNOTAVAIL']);

/** More than this is not the daemon's answer to a hook. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export function exchange(x: Exchange): Promise<Sent> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(x.origin);
    } catch {
      resolve({ failed: 'error' });
      return;
    }
    if (url.protocol !== 'http:') {
      resolve({ failed: 'error' });
      return;
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const body = x.body === undefined ? undefined : Buffer.from(x.body, 'utf8');
    const head = [
      `${x.method} ${x.path} HTTP/1.1`,
      `host: ${url.host}`,
      'connection: close',
      ...Object.entries(x.headers).map(([k, v]) => `${k}: ${v}`),
      ...(body === undefined ? [] : [`content-length: ${body.length}`]),
      '',
      '',
    ].join('\r\n');
    const reader = new AnswerReader();
    let done = false;
    const finish = (sent: Sent) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(sent);
    };
    const socket: Socket = connect({ host, port: Number(url.port) || 80 });
    const timer = setTimeout(() => finish({ failed: 'timeout' }), x.waitMs);
    socket.setNoDelay(true);
    socket.on('connect', () => {
      socket.write(body === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), body]));
    });
    socket.on('data', (chunk: Buffer) => {
      const got = reader.push(chunk);
      if (got === 'bad') finish({ failed: 'error' });
      else if (got) finish({ answer: got });
    });
    socket.on('end', () => {
      const got = reader.end();
      finish(got ? { answer: got } : { failed: 'error' });
    });
    socket.on('error', (e: NodeJS.ErrnoException) =>
      finish({ failed: REFUSED.has(e.code ?? '') && !reader.started ? 'refused' : 'error' }),
    );
    socket.on('close', () => finish({ failed: 'error' }));
  });
}

type Answer = { status: number; body: string };
/** How an answer's body ends: after `length` bytes, at the last chunk, or when the connection closes. */
type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' };

/** The status of an HTTP/1.x status line; null when it is not one. */
function statusOf(line: string | undefined): number | null {
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(line ?? '');
  return m?.[1] ? Number(m[1]) : null;
}

/** Header lines by lower-case name; null when one is not `name: value`. */
function headersOf(lines: string[]): Map<string, string> | null {
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return null;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function framingOf(status: number, headers: Map<string, string>): Framing | 'bad' {
  const encoding = headers.get('transfer-encoding');
  const length = headers.get('content-length');
  if (encoding !== undefined) return encoding.toLowerCase() === 'chunked' ? { kind: 'chunked' } : 'bad';
  if (length !== undefined) return /^\d{1,12}$/.test(length) ? { kind: 'length', length: Number(length) } : 'bad';
  if (status === 204 || status === 304) return { kind: 'length', length: 0 };
  return { kind: 'close' };
}

/**
 * An HTTP/1.1 answer read as its bytes arrive: `push` returns the answer once it is complete, `'bad'` when the
 * bytes are not HTTP, else null (more to come); `end` (the connection closed) returns the answer if it is whole.
 */
export class AnswerReader {
  private buf: Buffer = Buffer.alloc(0);
  private status = 0;
  /** Set once the head is read: how the body ends. */
  private framing: Framing | null = null;
  started = false;

  push(chunk: Buffer): Answer | 'bad' | null {
    this.started = true;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.buf.length > MAX_ANSWER_BYTES) return 'bad';
    for (;;) {
      if (this.framing) return this.body(false);
      const at = this.buf.indexOf('\r\n\r\n');
      if (at < 0) return this.buf.length > 64 * 1024 ? 'bad' : null;
      const lines = this.buf.subarray(0, at).toString('latin1').split('\r\n');
      this.buf = this.buf.subarray(at + 4);
      const status = statusOf(lines[0]);
      if (status === null) return 'bad';
      if (status >= 100 && status < 200) continue; // 100 Continue and the like: the answer follows
      const headers = headersOf(lines.slice(1));
      if (!headers) return 'bad';
      this.status = status;
      const framing = framingOf(status, headers);
      if (framing === 'bad') return 'bad';
      this.framing = framing;
    }
  }

  end(): Answer | null {
    if (!this.framing) return null;
    const got = this.body(true);
    return got === 'bad' ? null : got;
  }

  private body(ended: boolean): Answer | 'bad' | null {
    const f = this.framing;
    if (!f) return null;
    if (f.kind === 'close') return ended ? this.answer(this.buf) : null;
    if (f.kind === 'length') return this.buf.length >= f.length ? this.answer(this.buf.subarray(0, f.length)) : null;
    // chunked: `size[;ext]\r\n`, the bytes, `\r\n`; size 0 ends it (trailers, then an empty line).
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = this.buf.indexOf('\r\n', at);
      if (eol < 0) return null;
      const size = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(this.buf.subarray(at, eol).toString('latin1'));
      if (!size?.[1]) return 'bad';
      const n = Number.parseInt(size[1], 16);
      if (n === 0) {
        // Trailers, if any, end with an empty line.
        let t = eol + 2;
        for (;;) {
          const next = this.buf.indexOf('\r\n', t);
          if (next < 0) return null;
          if (next === t) return this.answer(Buffer.concat(parts));
          t = next + 2;
        }
      }
      if (this.buf.length < eol + 2 + n + 2) return null;
      parts.push(this.buf.subarray(eol + 2, eol + 2 + n));
      at = eol + 2 + n + 2;
    }
  }

  private answer(bytes: Buffer): Answer {
    return { status: this.status, body: bytes.toString('utf8') };
  }
}
