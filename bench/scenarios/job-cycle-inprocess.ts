/**
 * Full job cycle in process: post, claim, submit (fenced, evented).
 * coord: create_task, claim_next, submit_result through coord's operations (invoke) on SqliteStore
 *        (bench/coord/job-cycle.ts).
 * floor: bare SQLite post + claim + fenced complete (floors/sqlite-claim-loop.ts, op 'cycle'), on coord's schema.
 * peers: plainjob (enqueue + process), liteque 0.8 (its own folder, better-sqlite3 11.9.1).
 * target: coord ≥ plainjob's jobs/s (stretch 1.5×).
 */

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCoordCycle } from '../coord/job-cycle.js';
import { coordSchema } from '../coord/schema.js';
import { FILE } from '../floors/sqlite-claim-loop.js';
import { runChild } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario, type Runner, SkipError } from '../lib/types.js';
import { litequeUnavailable, runLiteque } from '../peers/liteque-cycle.js';
import { runPlainjob } from '../peers/plainjob-cycle.js';

export const JOBS = pick(1_000, 10_000);

/** Runs `fn` with a fresh (not yet existing) SQLite path in a temp dir, removed afterwards. */
export async function withFreshPath<T>(fn: (path: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    return await fn(join(dir, 'cycle.sqlite'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const liteque: Runner = async () => {
  const why = litequeUnavailable();
  if (why) throw new SkipError(why);
  return withFreshPath((path) => runLiteque({ path, jobs: JOBS }));
};

export default defineScenario({
  name: 'full job cycle in process: post, claim, submit',
  metric: 'jobs/s',
  unit: 'jobs/s',
  better: 'higher',
  target: { kind: 'ratio_to_peer_min', value: 1, peer: 'plainjob' },
  note: `${JOBS} jobs posted one by one then processed by one worker, timed end to end on a fresh file; coord: create_task, claim_next, submit_result through its operations table (zod, fencing, events), no transport; floor: the bare INSERT / claim UPDATE / fenced UPDATE on coord's schema; stretch target 1.5× plainjob`,
  contenders: {
    coord: () => withFreshPath((path) => runCoordCycle({ path, jobs: JOBS })),
    floor: () =>
      withFreshPath((path) => runChild<number>(FILE, { op: 'cycle', path, jobs: JOBS, schema: coordSchema() })),
    peers: {
      plainjob: () => withFreshPath((path) => runPlainjob({ path, jobs: JOBS })),
      liteque,
    },
  },
});
