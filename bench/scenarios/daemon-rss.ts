/**
 * Daemon RSS idle and after 100k tasks (quick: 5k).
 * coord: the real daemon from dist/ (`node bin/coord.js serve`, no tsx), on an empty board: RSS after
 *   IDLE_MS idle (the value); then, in the first round, TASKS tasks are posted through its HTTP API
 *   (POST /v1/tasks, autocannon, 8 connections) and RSS is read again after IDLE_MS (extra).
 * floor (reference): the bare node:http + better-sqlite3 claim server on coord's schema, idle on an
 *   empty board, then after TASKS tasks are inserted (one bulk INSERT in the server process).
 * Full mode also reads both after SETTLE_MS idle in the first round (extra.rss_settled_mb): V8 grows its
 * young generation during start-up and gives it back only when its memory reducer runs, ≈ 10 s later.
 * target: coord ≤ 70 MB idle (issue 15).
 */

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startCoordDaemon } from '../coord/daemon.js';
import { coordSchema } from '../coord/schema.js';
import { FILE as CLAIM_SERVER } from '../floors/bare-http-claim-server.js';
import { runAutocannon } from '../lib/autocannon-client.js';
import { rssMb, startServer } from '../lib/child.js';
import { pick, QUICK } from '../lib/config.js';
import { sleep } from '../lib/memo.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

export const TASKS = pick(5_000, 100_000);
export const IDLE_MS = pick(500, 2_000);
/** Full mode, first round: RSS again after this long idle (V8's memory reducer has run by then). */
export const SETTLE_MS = 12_000;
const AFTER = `rss_after_${TASKS / 1000}k_mb`;

/** Side figures of the first round: settled RSS (full mode), then RSS after `add()` added TASKS tasks. */
async function firstRound(pid: number, startedAt: number, add: () => Promise<Record<string, number>>) {
  const extra: Record<string, number> = {};
  if (!QUICK) {
    await sleep(Math.max(0, startedAt + SETTLE_MS - performance.now()));
    extra.rss_settled_mb = await rssMb(pid);
  }
  Object.assign(extra, await add());
  await sleep(IDLE_MS);
  extra[AFTER] = await rssMb(pid);
  return extra;
}

export default defineScenario({
  name: `daemon RSS idle (after ${TASKS / 1000}k tasks in extra)`,
  metric: 'RSS idle',
  unit: 'MB',
  better: 'lower',
  target: { kind: 'abs_max', value: 70 },
  note: `RSS read from /proc/<pid>/status after ${IDLE_MS} ms idle in every round; in the first round only, then${QUICK ? '' : ` after ${SETTLE_MS / 1000} s idle (rss_settled_mb) and`} after ${TASKS / 1000}k tasks are added (coord: posted over HTTP; floor: one bulk INSERT)${QUICK ? ' — quick mode adds 5k, the full run 100k' : ''}`,
  contenders: {
    coord: async (round) => {
      const d = await startCoordDaemon();
      const startedAt = performance.now();
      try {
        await sleep(IDLE_MS);
        const idle = await rssMb(d.pid);
        if (round > 0) return idle;
        const extra = await firstRound(d.pid, startedAt, async () => {
          const r = await runAutocannon({
            url: `${d.url}/v1/tasks`,
            connections: 8,
            durationS: 300,
            amount: TASKS,
            method: 'POST',
            body: '{"agent":"bench","title":"a task to remember","body":"a small body"}',
            headers: d.headers,
          });
          if (r.errors > 0 || r.non2xx > 0 || r.total < TASKS) throw new Error(`posting failed: ${JSON.stringify(r)}`);
          return { posts_per_s: r.rps };
        });
        return { value: idle, extra };
      } finally {
        await d.stop();
      }
    },
    floor: async (round) => {
      const dir = tempDir();
      const server = await startServer(CLAIM_SERVER, {
        path: join(dir, 'rss.sqlite'),
        create: true,
        schema: coordSchema(),
      });
      const startedAt = performance.now();
      try {
        await sleep(IDLE_MS);
        const idle = await rssMb(server.pid);
        if (round > 0) return idle;
        const extra = await firstRound(server.pid, startedAt, async () => {
          const r = await fetch(`${server.url}/seed?rows=${TASKS}`, { method: 'POST' });
          if (!r.ok) throw new Error(`seed failed: ${r.status}`);
          return {};
        });
        return { value: idle, extra };
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
});
