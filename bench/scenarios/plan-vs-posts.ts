/**
 * SPEC §11: a plan of 200 tasks (a chain of blocked_by edges) posted in one call,
 * against the same 200 tasks posted one call each, through coord's operations on
 * SQLite in process. Each round: a fresh database, 10 plans (or 10 × 200 posts),
 * the median time per 200 tasks.
 * coord: POST /v1/plans' operation (one transaction). floor: 200 × POST /v1/tasks' operation.
 * target: the plan takes at most half the time of the single posts.
 */
import { rmSync } from 'node:fs';
import { runPlanVsPosts } from '../coord/plan-vs-posts.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const TASKS = 200;
const REPEATS = 10;

const run = async (how: 'plan' | 'posts') => {
  const dir = tempDir();
  try {
    return await runPlanVsPosts({ dir, how, tasks: TASKS, repeats: REPEATS });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default defineScenario({
  name: `a plan of ${TASKS} tasks in one call vs ${TASKS} single posts`,
  metric: `ms per ${TASKS} tasks`,
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 0.5 },
  note: `coord = post_plan of ${TASKS} tasks chained by blocked_by (one transaction); floor = ${TASKS} create_task calls, each blocked_by the previous (one transaction each); in process on SQLite, median of ${REPEATS} per round`,
  contenders: {
    coord: () => run('plan'),
    floor: () => run('posts'),
  },
});
