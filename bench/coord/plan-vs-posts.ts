/**
 * SPEC §11: a plan of 200 dependent tasks posted in one call (one transaction)
 * against the same 200 tasks posted one by one (each with its blocked_by), both
 * through coord's operations on a SqliteStore. Runs under tsx (it imports src/).
 *
 *   { dir, how: 'plan' | 'posts', tasks, repeats } → ms per 200 tasks (median of repeats)
 */
import { join } from 'node:path';
import { invoke } from '../../src/core/invoke.js';
import { operations as op } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { childMain, runChild } from '../lib/child.js';
import { median } from '../lib/stats.js';

export const FILE = 'bench/coord/plan-vs-posts.ts';

interface Args {
  dir: string;
  how: 'plan' | 'posts';
  tasks: number;
  repeats: number;
}

export const runPlanVsPosts = (a: Args): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 300_000 });

childMain<Args>(FILE, async (a) => {
  const store = new SqliteStore({ path: join(a.dir, 'coord.db') });
  const ctx = { store, clock: new ManualClock(), presence: new Presence() };
  const times: number[] = [];
  try {
    for (let r = 0; r < a.repeats; r++) {
      const board = `plan-${r}`;
      const t0 = performance.now();
      if (a.how === 'plan') {
        const tasks = Array.from({ length: a.tasks }, (_, i) => ({
          ref: `s${i}`,
          title: `step ${i}`,
          blocked_by: i === 0 ? [] : [`s${i - 1}`],
        }));
        await invoke(op.postPlan, ctx, { agent: 'planner', board, tasks });
      } else {
        let last: string | undefined;
        for (let i = 0; i < a.tasks; i++) {
          const out = await invoke(op.createTask, ctx, {
            agent: 'planner',
            board,
            title: `step ${i}`,
            ...(last ? { blocked_by: [last] } : {}),
          });
          last = out.task.id;
        }
      }
      times.push(performance.now() - t0);
    }
    return median(times);
  } finally {
    await store.close();
  }
});
