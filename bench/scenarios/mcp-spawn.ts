/**
 * `coord mcp` spawn → `initialize` answered.
 * coord: `node bin/coord.js mcp` (dist/) spawned from the bench process with a daemon already serving its state
 *        directory; timed until the answer to `initialize` arrives on stdout (bench/coord/mcp-spawn.ts).
 * floor: spawning `node -e 0` until it exits (floors/node-e0.ts).
 * target: coord ≤ 2.5× the floor (issue 15).
 */
import { type CoordDaemon, startCoordDaemon } from '../coord/daemon.js';
import { mcpInitializeOnce } from '../coord/mcp-spawn.js';
import { nodeE0 } from '../floors/node-e0.js';
import { pick } from '../lib/config.js';
import { median } from '../lib/stats.js';
import { defineScenario } from '../lib/types.js';

export const SPAWNS = pick(5, 20);

let daemon: CoordDaemon | undefined;

export default defineScenario({
  name: '`coord mcp` spawn → initialize answered',
  metric: 'median spawn time',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 2.5 },
  note: `median of ${SPAWNS} spawns per round, spawned from the bench process; coord mcp runs from dist/ and relays initialize to a daemon already running for its state directory (one daemon for the whole scenario)`,
  async setup() {
    daemon = await startCoordDaemon();
  },
  async teardown() {
    await daemon?.stop();
    daemon = undefined;
  },
  contenders: {
    coord: async () => {
      const xs: number[] = [];
      for (let i = 0; i < SPAWNS; i++) xs.push(await mcpInitializeOnce(daemon?.stateDir ?? ''));
      return median(xs);
    },
    floor: () => nodeE0(SPAWNS),
  },
});
