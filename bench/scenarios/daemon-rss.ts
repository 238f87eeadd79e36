/**
 * Daemon RSS idle and after 100k tasks.
 * floor (reference): the bare node:http + better-sqlite3 claim server, idle on an empty
 *   board, then after 100k tasks are inserted (extra.rss_after_100k_mb).
 * target: coord ≤ 80 MB idle.
 */

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { FILE as CLAIM_SERVER } from '../floors/bare-http-claim-server.js';
import { rssMb, startServer } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { sleep } from '../lib/memo.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

export const TASKS = 100_000;
export const IDLE_MS = pick(500, 2_000);

export default defineScenario({
  name: 'daemon RSS idle (after 100k tasks in extra)',
  metric: 'RSS idle',
  unit: 'MB',
  better: 'lower',
  target: { kind: 'abs_max', value: 80 },
  note: `RSS read from /proc/<pid>/status after ${IDLE_MS} ms idle, then after ${TASKS / 1000}k tasks are added`,
  contenders: {
    // coord contender: plugged in by scenarios/daemon-rss.ts (see bench/README.md, "Plugging in coord")
    floor: async () => {
      const dir = tempDir();
      const server = await startServer(CLAIM_SERVER, { path: join(dir, 'rss.sqlite'), create: true });
      try {
        await sleep(IDLE_MS);
        const idle = await rssMb(server.pid);
        const r = await fetch(`${server.url}/seed?rows=${TASKS}`, { method: 'POST' });
        if (!r.ok) throw new Error(`seed failed: ${r.status}`);
        await sleep(IDLE_MS);
        return { value: idle, extra: { rss_after_100k_mb: await rssMb(server.pid) } };
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
});
