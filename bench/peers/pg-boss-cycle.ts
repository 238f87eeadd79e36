/**
 * Peer (PostgreSQL): pg-boss 10.4.2 (the last release for Node 20), one job per
 * claim, 4 workers, over a backlog inserted untimed with boss.insert() and then
 * VACUUM ANALYZEd (as the floor's table is).
 *
 * mode 'work'  — the documented consumer: 4 × boss.work(queue, { batchSize: 1,
 *                pollingIntervalSeconds: 0.5 (the minimum) }, handler). pg-boss's
 *                worker sleeps out the rest of its polling interval after every
 *                fetch, so the rate is bounded by polling; jobs/s = jobs completed
 *                in a fixed window / window.
 * mode 'fetch' — pg-boss's pull API at full speed: 4 concurrent loops of
 *                fetch(queue) → complete(queue, id) until the backlog is empty or
 *                `windowS` has passed; jobs/s = jobs completed / time taken.
 */
import PgBoss from 'pg-boss';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/peers/pg-boss-cycle.ts';

export interface PgBossArgs {
  url: string;
  mode: 'work' | 'fetch';
  jobs: number;
  workers: number;
  /** mode 'work': length of the measured window; mode 'fetch': the longest it may drain for. */
  windowS?: number;
}

export const runPgBoss = (a: PgBossArgs): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 300_000 });

childMain<PgBossArgs>(FILE, async (a) => {
  const boss = new PgBoss({
    connectionString: a.url,
    schema: 'bench_pgboss',
    max: a.workers + 2,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (err) => console.error('pg-boss:', err));
  await boss.start();
  const queue = `bench_${process.pid}`;
  await boss.createQueue(queue);
  for (let i = 0; i < a.jobs; i += 5000) {
    const n = Math.min(5000, a.jobs - i);
    await boss.insert(Array.from({ length: n }, (_, k) => ({ name: queue, data: { n: i + k } })));
  }
  // Settle the table as the floor's is (VACUUM ANALYZE after its bulk insert): without
  // planner statistics for the fresh partition, fetch() is ~10× slower on a 20k backlog.
  await boss.getDb().executeSql('VACUUM ANALYZE bench_pgboss.job', []);

  let done = 0;
  let rate: number;
  if (a.mode === 'fetch') {
    const t0 = performance.now();
    const until = t0 + (a.windowS ?? 3600) * 1000;
    await Promise.all(
      Array.from({ length: a.workers }, async () => {
        while (performance.now() < until) {
          const [job] = await boss.fetch(queue);
          if (!job) return;
          await boss.complete(queue, job.id);
          done++;
        }
      }),
    );
    rate = done / ((performance.now() - t0) / 1000);
    if (done === 0) throw new Error('pg-boss fetch() completed no job');
  } else {
    const windowMs = (a.windowS ?? 3) * 1000;
    let started = 0;
    const t0 = performance.now();
    for (let w = 0; w < a.workers; w++) {
      await boss.work(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async () => {
        if (performance.now() - t0 <= windowMs) started++;
      });
    }
    await new Promise((r) => setTimeout(r, windowMs));
    done = started;
    rate = done / (windowMs / 1000);
  }
  await boss.stop({ graceful: false, wait: true, close: true });
  return rate;
});
