/**
 * Load generation in ANOTHER process: runAutocannon() spawns this file as a child
 * which drives autocannon against `url` with N keep-alive connections for D
 * seconds (after a short warmup) and reports requests/s and latency p50/p99.
 *
 * autocannon records latency in whole milliseconds, so its p50/p99 are coarse
 * at sub-millisecond latencies; light-load latency is measured with
 * latency-client.ts instead (microsecond timer, one connection).
 */
import autocannon from 'autocannon';
import { childMain, runChild } from './child.js';

export interface AutocannonOptions {
  url: string;
  connections: number;
  durationS: number;
  /** Stop after this many requests instead of after durationS (then durationS only bounds the timeout). */
  amount?: number;
  warmupS?: number;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

export interface AutocannonResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  total: number;
  errors: number;
  non2xx: number;
}

const FILE = 'bench/lib/autocannon-client.ts';

export function runAutocannon(o: AutocannonOptions): Promise<AutocannonResult> {
  return runChild<AutocannonResult>(FILE, o, { timeoutMs: (o.durationS + (o.warmupS ?? 0)) * 1000 + 30_000 });
}

childMain<AutocannonOptions>(FILE, async (o) => {
  const r = await autocannon({
    url: o.url,
    connections: o.connections,
    ...(o.amount ? { amount: o.amount } : { duration: o.durationS }),
    method: o.method ?? 'GET',
    ...(o.body === undefined ? {} : { body: o.body }),
    headers: { 'content-type': 'application/json', ...o.headers },
    ...(o.warmupS ? { warmup: { connections: o.connections, duration: o.warmupS } } : {}),
  });
  const total = r.requests.total;
  return {
    rps: total / r.duration,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  } satisfies AutocannonResult;
});
