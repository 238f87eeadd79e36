/**
 * Peer: liteque 0.8.0 doing the full job cycle on a fresh file: enqueue N jobs
 * (await queue.enqueue), then a Runner (concurrency 1) processes them with a no-op
 * handler until the queue is empty. Timed from the first enqueue to the end. jobs/s.
 *
 * liteque 0.8 wraps an async function in a better-sqlite3 transaction, which
 * better-sqlite3 ≥ 11.10 rejects ("Transaction function cannot return a promise").
 * It therefore lives in bench/peers/liteque with its own node_modules pinned to
 * better-sqlite3 11.9.1 (npm --prefix bench/peers/liteque install). When that
 * install is missing or has the wrong better-sqlite3, the peer reports itself as
 * not runnable (SkipError) with the reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { childMain, repoPath, runChild } from '../lib/child.js';
import { SkipError } from '../lib/types.js';

export const FILE = 'bench/peers/liteque-cycle.ts';
const DIR = repoPath('bench/peers/liteque/node_modules');

export interface CycleArgs {
  path: string;
  jobs: number;
}

export const runLiteque = (a: CycleArgs): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 120_000 });

/** Null when liteque can run here, else why not. */
export function litequeUnavailable(): string | null {
  const install = 'run `npm --prefix bench/peers/liteque install` (builds better-sqlite3 11.9.1)';
  if (!existsSync(`${DIR}/liteque/package.json`)) return `liteque not installed: ${install}`;
  const bs = `${DIR}/better-sqlite3/package.json`;
  if (!existsSync(bs)) return `better-sqlite3 missing next to liteque: ${install}`;
  const version = (JSON.parse(readFileSync(bs, 'utf8')) as { version: string }).version;
  const [maj = 0, min = 0] = version.split('.').map(Number);
  if (maj > 11 || (maj === 11 && min >= 10))
    return `liteque 0.8 throws "Transaction function cannot return a promise" on better-sqlite3 ${version} (needs < 11.10)`;
  if (!existsSync(`${DIR}/better-sqlite3/build/Release/better_sqlite3.node`))
    return `better-sqlite3 ${version} in bench/peers/liteque is not built: run \`npm --prefix bench/peers/liteque rebuild better-sqlite3\``;
  return null;
}

interface Liteque {
  buildDBClient(path: string, opts: { runMigrations: boolean }): unknown;
  SqliteQueue: new (
    name: string,
    db: unknown,
    opts: { defaultJobArgs: { numRetries: number }; keepFailedJobs: boolean },
  ) => { enqueue(payload: unknown): Promise<unknown> };
  Runner: new (
    queue: unknown,
    funcs: { run: (job: unknown) => Promise<void> },
    opts: { concurrency: number; pollIntervalMs: number; timeoutSecs: number },
  ) => { runUntilEmpty(): Promise<void> };
}

childMain<CycleArgs>(FILE, async (a) => {
  const why = litequeUnavailable();
  if (why) throw new SkipError(why);
  const lq = (await import(pathToFileURL(`${DIR}/liteque/dist/index.js`).href)) as Liteque;
  const db = lq.buildDBClient(a.path, { runMigrations: true });
  const queue = new lq.SqliteQueue('bench', db, { defaultJobArgs: { numRetries: 0 }, keepFailedJobs: false });
  let done = 0;
  const runner = new lq.Runner(
    queue,
    {
      run: async () => {
        done++;
      },
    },
    { concurrency: 1, pollIntervalMs: 10, timeoutSecs: 60 },
  );
  const t0 = performance.now();
  for (let i = 0; i < a.jobs; i++) await queue.enqueue({ n: i });
  await runner.runUntilEmpty();
  const rate = a.jobs / ((performance.now() - t0) / 1000);
  if (done !== a.jobs) throw new Error(`liteque processed ${done} of ${a.jobs}`);
  return rate;
});
