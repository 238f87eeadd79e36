/**
 * Peer: plainjob 0.0.14 (SQLite job queue on better-sqlite3) doing the full job
 * cycle on a fresh file: enqueue N jobs one by one (queue.add), then one worker
 * processes them (claim, run a no-op handler, mark done). Timed from the first
 * add to the N-th completion. Result: jobs/s.
 *
 * plainjob's worker polls only when idle (pollIntervall), so with a backlog it runs
 * back to back; its logger is silenced (the default, console, prints every job).
 */
import Database from 'better-sqlite3';
import { better, defineQueue, defineWorker, type Logger } from 'plainjob';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/peers/plainjob-cycle.ts';

export interface CycleArgs {
  /** A fresh SQLite file path (not yet existing). */
  path: string;
  jobs: number;
}

export const runPlainjob = (a: CycleArgs): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 120_000 });

const silent: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

childMain<CycleArgs>(FILE, async (a) => {
  const queue = defineQueue({ connection: better(new Database(a.path)), logger: silent });
  let done = 0;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const worker = defineWorker('bench', async () => {}, {
    queue,
    logger: silent,
    pollIntervall: 10,
    onCompleted: () => {
      if (++done === a.jobs) finish();
    },
  });
  const t0 = performance.now();
  for (let i = 0; i < a.jobs; i++) queue.add('bench', { n: i });
  void worker.start();
  await finished;
  const rate = a.jobs / ((performance.now() - t0) / 1000);
  await worker.stop();
  queue.close();
  return rate;
});
