/**
 * SPEC §18: a plan of 10 trivial tasks through `coord run --integrate` with the real Claude Code and the fake
 * model, against a shell script doing the same steps with no supervision and the same parallelism.
 * target: coord takes at most 1.5× the script's wall time. Peer `contract`: the script plus what §18's contract
 * adds inside the client whoever supervises it (an MCP server that answers at once, one model turn more).
 */
import { rmSync } from 'node:fs';
import { runPlan } from '../coord/run-plan.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const TASKS = 10;
const PARALLEL = 2;

const run = async (how: 'coord' | 'floor' | 'contract') => {
  const dir = tempDir();
  try {
    return await runPlan({ dir, how, tasks: TASKS, parallel: PARALLEL });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export default defineScenario({
  name: `coord run --integrate: a plan of ${TASKS} trivial tasks`,
  metric: `ms for ${TASKS} tasks, ${PARALLEL} at a time, to be merged`,
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.5 },
  note: `real Claude Code (~/.cache/coord-agents) against the fake Anthropic server, ${PARALLEL} processes at once on both sides; coord = \`coord run --agents claude:${PARALLEL} --once --integrate\` from dist/ against a running daemon (plan posted before the clock): claim, work tree, port, claude -p with coord's MCP server and hooks, lease, the agent's submit_result (one model turn more), the integrator's merges; floor = \`xargs -P ${PARALLEL}\` of sh: git worktree add -b, claude -p (acceptEdits, no MCP, no hooks), wait, flock + git merge; each task writes one file and commits it; peer = the floor's script with a no-op stdio MCP server given to each claude -p and one more model turn calling its tool (the contract's cost, without coord); every side's Claude Code gets a temporary folder of the round's own (CLAUDE_CODE_TMPDIR), so none finds an earlier round's folders`,
  contenders: {
    coord: () => run('coord'),
    floor: () => run('floor'),
    peers: { 'script + contract (an MCP server, one more turn)': () => run('contract') },
  },
});
