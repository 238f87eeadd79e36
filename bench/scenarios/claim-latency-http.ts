/**
 * claim p50 / p99 latency over HTTP at light load (1 connection).
 * floor: the bare node:http + UPDATE server (floors/bare-http-claim-server.ts), timed by lib/latency-client.ts
 *        (another process, one keep-alive connection, microsecond timer).
 * target: coord p50 ≤ 1.5× the floor's p50. p99 is reported alongside (extra.p99_ms).
 */
import { FILE as CLAIM_SERVER } from '../floors/bare-http-claim-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { startServer } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { measureLatency } from '../lib/latency-client.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario, type Measurement } from '../lib/types.js';

export const ROWS = 100_000;
export const REQUESTS = pick(1_000, 3_000);
export const WARMUP = 200;

let template = '';

/** Sequential claims against `baseUrl` + `path` on one connection; p50 as value, p99 as extra. */
export async function claimLatency(
  baseUrl: string,
  path = '/claim',
  body = '{"agent":"agent-{i}"}',
): Promise<Measurement> {
  const r = await measureLatency({
    url: baseUrl,
    paths: [path],
    method: 'POST',
    body,
    requests: REQUESTS,
    warmup: WARMUP,
    ok: [200],
  });
  if (r.errors > 0) throw new Error(`${r.errors} failed requests`);
  return { value: r.p50_ms, extra: { p99_ms: r.p99_ms } };
}

export default defineScenario({
  name: 'claim latency over HTTP, 1 connection (p50; p99 in extra)',
  metric: 'p50 latency',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.5 },
  note: `${REQUESTS} sequential claims after ${WARMUP} warm-up, one keep-alive connection from another process`,
  async setup() {
    template = await seededTemplate([{ rows: ROWS }]);
  },
  contenders: {
    // coord contender: plugged in by scenarios/claim-latency-http.ts (see bench/README.md, "Plugging in coord")
    floor: async () => {
      const db = freshCopy(template);
      const server = await startServer(CLAIM_SERVER, { path: db.path });
      try {
        return await claimLatency(server.url);
      } finally {
        await server.stop();
        db.cleanup();
      }
    },
  },
});
