/**
 * claim-next over HTTP, 50 keep-alive connections, coord `--durability normal` against what a user would write
 * by hand (issue 36): a bare node:http server doing one autocommit claim UPDATE per POST at synchronous=NORMAL
 * on its own minimal table (floors/sqlite-claim-loop.ts FLOOR_SCHEMA: no readiness, ttl or visibility columns,
 * no events). The claim-next-http-normal row keeps the floor on coord's schema and claim conditions; this one
 * asks how close coord comes to the naive server a user would compare it with.
 * coord: the same daemon as claim-next-http-normal (from dist/, bearer token, on coord's schema).
 * Both loaded by autocannon in another process (lib/autocannon-client.ts); target ≥ 0.8×.
 */
import { coordSchema } from '../coord/schema.js';
import { FILE as CLAIM_SERVER } from '../floors/bare-http-claim-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { startServer } from '../lib/child.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';
import { CONNECTIONS, coordClaims, DURATION_S, loadClaims, ROWS, WARMUP_S } from './claim-next-http.js';

let coordTemplate = '';
let naiveTemplate = '';

export default defineScenario({
  name: `claim-next over HTTP, ${CONNECTIONS} keep-alive connections, --durability normal vs a naive server (node:http + one NORMAL UPDATE)`,
  metric: 'requests/s',
  unit: 'req/s',
  better: 'higher',
  target: { kind: 'ratio_to_floor_min', value: 0.8 },
  note: `autocannon in another process, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, ${ROWS / 1000}k queued; coord = the daemon from dist/ with its bearer token and --durability normal, on its own schema; floor = a bare node:http server, one autocommit UPDATE … RETURNING per POST at synchronous=NORMAL on a minimal tasks table (its own schema: what a user would write by hand); load generator and server share the 2 cores`,
  async setup() {
    coordTemplate = await seededTemplate([{ rows: ROWS }], coordSchema());
    naiveTemplate = await seededTemplate([{ rows: ROWS }]);
  },
  contenders: {
    coord: () => coordClaims(coordTemplate, 'normal', process.env.BENCH_COORD_NODE_ARGS?.split(' ').filter(Boolean)),
    floor: async () => {
      const db = freshCopy(naiveTemplate);
      const server = await startServer(CLAIM_SERVER, { path: db.path, synchronous: 'NORMAL' });
      try {
        const m = await loadClaims(`${server.url}/claim`);
        const stats = (await (await fetch(`${server.url}/stats`)).json()) as { empty: number };
        if (stats.empty > 0) throw new Error(`queue ran dry (${stats.empty} empty claims): raise ROWS`);
        return m;
      } finally {
        await server.stop();
        db.cleanup();
      }
    },
  },
});
