/**
 * CLI start (issue 26, item 6): `coord --version` and `coord inbox`, spawned until they exit.
 * coord: `node bin/coord.js --version` (no daemon), and `node bin/coord.js inbox` against a daemon already
 *        serving its state directory (bench/coord/cli-run.ts).
 * floor: spawning `node -e 0` until it exits (floors/node-e0.ts).
 * targets: --version ≤ 1.5× the floor, inbox ≤ 2.5×.
 */
import { cliRunOnce } from '../coord/cli-run.js';
import { type CoordDaemon, startCoordDaemon } from '../coord/daemon.js';
import { nodeE0 } from '../floors/node-e0.js';
import { pick } from '../lib/config.js';
import { median } from '../lib/stats.js';
import { defineScenario } from '../lib/types.js';

const SPAWNS = pick(5, 20);

const runs = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const xs: number[] = [];
  for (let i = 0; i < SPAWNS; i++) xs.push(await cliRunOnce(args, env));
  return median(xs);
};

export const cliVersion = defineScenario({
  name: '`coord --version` spawn → exit',
  metric: 'median spawn time',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 1.5 },
  note: `median of ${SPAWNS} spawns per round from dist/; main.ts answers --version before loading the CLI parser`,
  contenders: {
    coord: () => runs(['--version']),
    floor: () => nodeE0(SPAWNS),
  },
});

let daemon: CoordDaemon | undefined;

export const cliInbox = defineScenario({
  name: '`coord inbox` spawn → exit (empty inbox)',
  metric: 'median spawn time',
  unit: 'ms',
  better: 'lower',
  target: { kind: 'ratio_to_floor_max', value: 2.5 },
  note: `median of ${SPAWNS} spawns per round from dist/ against one daemon already running for its state directory; only the inbox command's modules load (cli/one-command.ts)`,
  async setup() {
    daemon = await startCoordDaemon();
  },
  async teardown() {
    await daemon?.stop();
    daemon = undefined;
  },
  contenders: {
    coord: () => runs(['inbox'], { COORD_STATE: daemon?.stateDir ?? '', COORD_AGENT: 'bench', COORD_BOARD: 'bench' }),
    floor: () => nodeE0(SPAWNS),
  },
});
