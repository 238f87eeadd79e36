/**
 * SPEC §15: 50 independent one-commit tasks integrated (no check), against a bare shell loop doing
 * `git merge-tree --write-tree` + `commit-tree` + `update-ref` for the same 50 branches.
 * target: coord takes at most 1.5× the loop's time.
 */
import { rmSync } from 'node:fs';
import { runIntegrateQueue } from '../coord/integrate-queue.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const TASKS = 50;

const run = async (how: 'coord' | 'floor') => {
  const dir = tempDir();
  try {
    return await runIntegrateQueue({ dir, how, tasks: TASKS });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default defineScenario({
  name: `integrating ${TASKS} independent one-commit tasks`,
  metric: `ms per ${TASKS} tasks`,
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.5 },
  note: `coord = the integrator (slot, queue, refs read from files, merge-base beside merge-tree, commit-tree, CAS in the turn's update-ref --stdin, recorded result with its event and message) in process on SQLite; floor = sh loop of rev-parse + merge-tree + commit-tree + update-ref NEW OLD (the same CAS and commits); fresh repository each, main not checked out`,
  contenders: {
    coord: () => run('coord'),
    floor: () => run('floor'),
  },
});
