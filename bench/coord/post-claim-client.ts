/**
 * coord contender, post → claim by a waiting agent: a client process with two
 * keep-alive connections to the daemon. For each trial, the waiter sends
 * POST /v1/claim {wait_s} and is left parked for `parkMs`; then the poster sends
 * POST /v1/tasks. Latency = from just before the post is sent to the moment the
 * waiter's claim answer has arrived (so it includes the post's own request).
 * Trials run one after another. Result: median ms, with min/max/trials in extra.
 */
import { Agent, request } from 'node:http';
import { childMain, runChild } from '../lib/child.js';
import { median, percentile } from '../lib/stats.js';

export const FILE = 'bench/coord/post-claim-client.ts';

export interface PostClaimArgs {
  url: string;
  token: string;
  trials: number;
  /** How long the waiter is parked before the post (ms). */
  parkMs?: number;
}

export const runPostClaim = (a: PostClaimArgs): Promise<{ value: number; extra: Record<string, number> }> =>
  runChild(FILE, a, { timeoutMs: 120_000 });

function post(
  agent: Agent,
  base: URL,
  token: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          out += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: out }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

childMain<PostClaimArgs>(FILE, async (a) => {
  const base = new URL(a.url);
  const waiterConn = new Agent({ keepAlive: true, maxSockets: 1 });
  const posterConn = new Agent({ keepAlive: true, maxSockets: 1 });
  // Warm both connections (and the daemon's code paths) first.
  await post(posterConn, base, a.token, '/v1/tasks', { agent: 'poster', title: 'warm-up' });
  await post(waiterConn, base, a.token, '/v1/claim', { agent: 'waiter' });
  const latencies: number[] = [];
  for (let i = 0; i < a.trials; i++) {
    const claimed = post(waiterConn, base, a.token, '/v1/claim', { agent: 'waiter', wait_s: 30 });
    await sleep(a.parkMs ?? 30);
    const t0 = performance.now();
    const posted = post(posterConn, base, a.token, '/v1/tasks', { agent: 'poster', title: `trial ${i}` });
    const grant = await claimed;
    const ms = performance.now() - t0;
    const created = await posted;
    if (grant.status !== 200 || created.status !== 201)
      throw new Error(`trial ${i}: claim answered ${grant.status}, post answered ${created.status}`);
    const taskId = (JSON.parse(created.body) as { task: { id: string } }).task.id;
    if ((JSON.parse(grant.body) as { task: { id: string } }).task.id !== taskId)
      throw new Error(`trial ${i}: the waiter claimed another task than the one posted`);
    latencies.push(ms);
  }
  waiterConn.destroy();
  posterConn.destroy();
  return {
    value: median(latencies),
    extra: {
      p90_ms: percentile(latencies, 90),
      max_ms: Math.max(...latencies),
      min_ms: Math.min(...latencies),
      trials: latencies.length,
    },
  };
});
