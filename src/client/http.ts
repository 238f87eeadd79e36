/**
 * The clients' HTTP to the daemon, on node:http rather than the global fetch: fetch's first call loads
 * undici, its web streams and its WebAssembly parser (~30–50 ms, the largest part of `coord mcp`'s start),
 * and every request here is plain HTTP/1.1 on loopback. The answer looks like what the callers used of
 * fetch's Response: status, ok, a header, the body to iterate (SSE) or read whole.
 */
import { type IncomingMessage, request } from 'node:http';

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  /** Absent or undefined: no body. */
  body?: string | undefined;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  ok: boolean;
  /** A response header (lower case name), joined with ', ' when it came several times. */
  header(name: string): string | undefined;
  /** The body as it arrives; aborting the request's signal ends it with an error. */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
}

/** Rejects when no answer comes (refused, reset, aborted); an HTTP error status resolves, like fetch. */
export function httpRequest(url: string, init: HttpInit = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    const req = request(url, { method: init.method ?? 'GET', headers, signal: init.signal }, (res) =>
      resolve(answer(res)),
    );
    req.once('error', reject);
    req.end(init.body);
  });
}

function answer(res: IncomingMessage): HttpAnswer {
  const status = res.statusCode ?? 0;
  const text = async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    status,
    ok: status >= 200 && status < 300,
    header(name) {
      const v = res.headers[name.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    body: res,
    text,
    json: async <T>() => JSON.parse(await text()) as T,
  };
}
