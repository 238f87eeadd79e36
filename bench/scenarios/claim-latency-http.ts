/**
 * claim p50 / p99 latency over HTTP at light load (1 connection).
 * coord: the real daemon from dist/ (POST /v1/claim with its bearer token) on a copy of the seeded file.
 * floor: the bare node:http + UPDATE server (floors/bare-http-claim-server.ts) on the same file (coord's schema),
 *        at synchronous=FULL like coord's default: one claim at a time cannot share a commit, so both sync each one.
 * Both timed by lib/latency-client.ts (another process, one keep-alive connection, microsecond timer).
 * target: coord p50 ≤ 1.5× the floor's p50. p99 is reported alongside (extra.p99_ms).
 */
import { startCoordDaemon } from '../coord/daemon.js';
import { coordSchema } from '../coord/schema.js';
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
  headers: Record<string, string> = {},
): Promise<Measurement> {
  const r = await measureLatency({
    url: baseUrl,
    paths: [path],
    method: 'POST',
    body,
    headers,
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
  note: `${REQUESTS} sequential claims after ${WARMUP} warm-up, one keep-alive connection from another process; ${ROWS / 1000}k queued, coord's schema for both; coord = the daemon from dist/ with its bearer token (durable, its default), floor at synchronous=FULL (each claim synced, as coord's lone claims are)`,
  async setup() {
    template = await seededTemplate([{ rows: ROWS }], coordSchema());
  },
  contenders: {
    coord: async () => {
      const d = await startCoordDaemon({ dbFile: template });
      try {
        return await claimLatency(d.url, '/v1/claim', '{"agent":"agent-{i}"}', d.headers);
      } finally {
        await d.stop();
      }
    },
    floor: async () => {
      const db = freshCopy(template);
      const server = await startServer(CLAIM_SERVER, { path: db.path, schema: coordSchema(), synchronous: 'FULL' });
      try {
        return await claimLatency(server.url);
      } finally {
        await server.stop();
        db.cleanup();
      }
    },
  },
});
