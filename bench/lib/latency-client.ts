/**
 * Light-load latency in ANOTHER process: one keep-alive connection, requests one
 * after another, each timed with performance.now() (microsecond resolution;
 * autocannon's histogram is whole milliseconds). Reports p50/p99 in ms.
 *
 * `paths` are cycled through (e.g. one inbox per agent); `{i}` in a body is
 * replaced by the request number.
 */
import { Agent, request } from 'node:http';
import { childMain, runChild } from './child.js';
import { percentile } from './stats.js';

export interface LatencyOptions {
  /** Base URL, e.g. http://127.0.0.1:1234 */
  url: string;
  paths: string[];
  method?: 'GET' | 'POST';
  body?: string;
  requests: number;
  warmup?: number;
  /** Status codes that count as success (default 200, 204). */
  ok?: number[];
  /** Extra request headers (e.g. coord's Authorization: Bearer …). */
  headers?: Record<string, string>;
  /** Bodies cycled through like `paths` (request i sends bodies[i % n]) instead of `body`. */
  bodies?: string[];
}

export interface LatencyResult {
  p50_ms: number;
  p99_ms: number;
  rps: number;
  errors: number;
}

const FILE = 'bench/lib/latency-client.ts';

export function measureLatency(o: LatencyOptions): Promise<LatencyResult> {
  return runChild<LatencyResult>(FILE, o, { timeoutMs: 120_000 });
}

childMain<LatencyOptions>(FILE, async (o) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(o.url);
  const ok = new Set(o.ok ?? [200, 204]);
  let errors = 0;
  const one = (i: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = o.bodies ? o.bodies[i % o.bodies.length] : o.body?.replaceAll('{i}', String(i));
      const req = request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method: o.method ?? 'GET',
          path: o.paths[i % o.paths.length],
          headers: {
            ...o.headers,
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          if (!ok.has(res.statusCode ?? 0)) errors++;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let i = 0; i < (o.warmup ?? 100); i++) await one(i);
  const samples = new Float64Array(o.requests);
  const t0 = performance.now();
  for (let i = 0; i < o.requests; i++) {
    const s = performance.now();
    await one(i);
    samples[i] = performance.now() - s;
  }
  const wall = (performance.now() - t0) / 1000;
  agent.destroy();
  const xs = Array.from(samples);
  return {
    p50_ms: percentile(xs, 50),
    p99_ms: percentile(xs, 99),
    rps: o.requests / wall,
    errors,
  } satisfies LatencyResult;
});
