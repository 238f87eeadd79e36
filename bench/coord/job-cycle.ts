/**
 * coord contender, full job cycle in process: on a fresh file, post N tasks one by one
 * (create_task), then one worker claims and submits each (claim_next, submit_result) —
 * all through coord's operations table (invoke: zod parse, then the operation), so
 * every step is fenced and evented exactly as over HTTP or MCP, minus the transport.
 * Timed from the first post to the last submit. Runs under tsx (it imports src/).
 *
 *   { path, jobs } → jobs/s
 */

import { invoke } from '../../src/core/invoke.js';
import type { Ctx } from '../../src/core/operation.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { systemClock } from '../../src/core/shared/clock.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/coord/job-cycle.ts';

export interface JobCycleArgs {
  path: string;
  jobs: number;
}

export const runCoordCycle = (a: JobCycleArgs, nodeArgs: string[] = []): Promise<number> =>
  runChild<number>(FILE, a, { timeoutMs: 300_000, nodeArgs });

childMain<JobCycleArgs>(FILE, async (a) => {
  // synchronous=NORMAL like the floor's loop: one claim at a time cannot share a commit, so FULL would measure the disk.
  const store = new SqliteStore({ path: a.path, durability: 'normal' });
  const ctx: Ctx = { store, clock: systemClock, presence: new Presence() };
  try {
    const t0 = performance.now();
    for (let i = 0; i < a.jobs; i++)
      await invoke(op.createTask, ctx, { agent: 'bench', title: `job ${i}`, body: '{"n":1}' });
    for (let i = 0; i < a.jobs; i++) {
      const grant = await invoke(op.claimNext, ctx, { agent: 'worker-1' });
      if (!grant) throw new Error(`queue ran dry after ${i} claims`);
      await invoke(op.submitResult, ctx, {
        task_id: grant.task.id,
        claim_id: grant.claim_id,
        status: 'completed',
        result: { ok: true },
      });
    }
    return a.jobs / ((performance.now() - t0) / 1000);
  } finally {
    await store.close();
  }
});
