/**
 * `coord mcp` spawn → `initialize` answered.
 * floor: spawning `node -e 0` until it exits (floors/node-e0.ts).
 * target: coord ≤ 5× the floor.
 */
import { nodeE0 } from '../floors/node-e0.js';
import { pick } from '../lib/config.js';
import { defineScenario } from '../lib/types.js';

export const SPAWNS = pick(5, 20);

export default defineScenario({
  name: '`coord mcp` spawn → initialize answered',
  metric: 'median spawn time',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 5 },
  note: `median of ${SPAWNS} spawns per round, spawned from the bench process`,
  contenders: {
    // coord contender: plugged in by scenarios/mcp-spawn.ts (see bench/README.md, "Plugging in coord")
    floor: () => nodeE0(SPAWNS),
  },
});
