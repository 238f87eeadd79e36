/**
 * Empty inbox poll over HTTP with lazy expiry: 10,000 historical tasks over 500 agents,
 * 2,000 reads per round.
 * coord: the real daemon from dist/ (GET /v1/inbox?agent=… with its bearer token) on a copy of the seeded
 *        file: due probe (lazy expiry), own claims, private and public queue, count, cursor.
 * floor: a plain indexed SELECT behind bare node:http (floors/bare-http-select-server.ts), read-only, on the
 *        same seeded file (coord's schema).
 * target: coord p50 ≤ 1.1× the floor's, and 0 write transactions during the reads (extra.write_tx): coord's
 *         are counted from outside by bench/coord/write-counter.ts (WAL commit frames + PRAGMA data_version).
 */
import { startCoordDaemon } from '../coord/daemon.js';
import { coordSchema } from '../coord/schema.js';
import { writeCounter } from '../coord/write-counter.js';
import { FILE as SELECT_SERVER } from '../floors/bare-http-select-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { startServer } from '../lib/child.js';
import { measureLatency } from '../lib/latency-client.js';
import { defineScenario, type Measurement } from '../lib/types.js';

export const HISTORY = 10_000;
export const AGENTS = 500;
export const READS = 2_000;
export const AGENT_NAMES = Array.from({ length: AGENTS }, (_, i) => `agent-${i}`);

let template = '';

/**
 * `READS` sequential GETs of `pathFor(agent)` cycling over the 500 agents; p50 as value.
 * `writeTx()` is asked before and after: the difference is reported as extra.write_tx.
 */
export async function inboxReads(
  baseUrl: string,
  pathFor: (agent: string) => string,
  writeTx: () => Promise<number>,
  headers: Record<string, string> = {},
): Promise<Measurement> {
  const before = await writeTx();
  const r = await measureLatency({
    url: baseUrl,
    paths: AGENT_NAMES.map(pathFor),
    requests: READS,
    warmup: 100,
    ok: [200],
    headers,
  });
  if (r.errors > 0) throw new Error(`${r.errors} failed reads`);
  return { value: r.p50_ms, extra: { p99_ms: r.p99_ms, write_tx: (await writeTx()) - before } };
}

export default defineScenario({
  name: `empty inbox poll over HTTP, ${HISTORY / 1000}k history over ${AGENTS} agents`,
  metric: 'p50 read latency',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.1, extra_max: { write_tx: 0 } },
  note: `${READS} reads per round on one keep-alive connection, cycling over ${AGENTS} agents (coord's schema for both); write transactions counted during the reads — coord's from outside its process: commit frames in its WAL, cross-checked with PRAGMA data_version on a second connection`,
  async setup() {
    template = await seededTemplate([{ rows: HISTORY, state: 'completed', agents: AGENTS }], coordSchema());
  },
  contenders: {
    coord: async () => {
      const d = await startCoordDaemon({ dbFile: template });
      const writes = writeCounter(`${d.stateDir}/coord.db`);
      try {
        return await inboxReads(
          d.url,
          (agent) => `/v1/inbox?agent=${agent}`,
          async () => writes.count(),
          d.headers,
        );
      } finally {
        writes.close();
        await d.stop();
      }
    },
    floor: async () => {
      const server = await startServer(SELECT_SERVER, { path: template });
      try {
        const writeTx = async () =>
          ((await (await fetch(`${server.url}/stats`)).json()) as { write_tx: number }).write_tx;
        return await inboxReads(server.url, (agent) => `/inbox?agent=${agent}`, writeTx);
      } finally {
        await server.stop();
      }
    },
  },
});
