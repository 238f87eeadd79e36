/**
 * SPEC §18: supervisor overhead — from a task becoming ready to its agent process started, against a shell that
 * makes the work tree (`git worktree add`) and starts the same client. target: at most 1.3× the shell.
 */
import { rmSync } from 'node:fs';
import { runSupervisorStart } from '../coord/supervisor-start.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const run = async (how: 'coord' | 'floor') => {
  const dir = tempDir();
  try {
    return await runSupervisorStart({ dir, how });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default defineScenario({
  name: 'coord run: a ready task to its agent process started',
  metric: 'ms from ready to the client started',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.3 },
  note: 'coord = timed from the post committed (extra.with_post_ms: from before the post, its durable commit included); the supervisor in process on SQLite, idle in claim-next: claim for a fresh agent, git worktree add, .worktreeinclude, a reserved port, the task read for the prompt, the client spawned (the claim is told its work tree after); floor = sh: git worktree add -b + exec the client; client = a stand-in claude (node writing its start time)',
  contenders: {
    coord: () => run('coord'),
    floor: () => run('floor'),
  },
});
