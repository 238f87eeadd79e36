/**
 * SPEC §15 "Speculative window": 8 tasks on disjoint files with a check of `sleep 2`, merged with
 * `--window 4` (coord) against `--window 1`, one at a time (floor) — all green, and with one red task in the
 * middle. Targets: the window lands all 8 in ≤ 0.4× the one-at-a-time wall time (≤ 0.6× with the red one), and
 * all green in ≤ 1.3× the ideal: 8 / 4 windows × 2 s of check, plus the merges measured alone (the same run with
 * a check that does nothing, `true`, measured in the same round).
 */
import { rmSync } from 'node:fs';
import { runIntegrateQueue } from '../coord/integrate-queue.js';
import { tempDir } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const TASKS = 8;
const CHECK = 'sleep 2; test ! -e red';

const CHECK_S = 2;
const run = async (window: number, red: number | undefined, check = CHECK) => {
  const dir = tempDir();
  try {
    return await runIntegrateQueue({
      dir,
      how: 'coord',
      tasks: TASKS,
      check: { command: check, window },
      ...(red === undefined ? {} : { red }),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const windowRow = (red: number | undefined, ratio: number) =>
  defineScenario({
    name: `integrating ${TASKS} tasks with a 2 s check, window 4 vs one at a time${red === undefined ? '' : ', one red in the middle'}`,
    metric: `ms per ${TASKS} tasks`,
    unit: 'ms',
    better: 'lower',
    target: {
      kind: 'ratio_to_floor_max',
      value: ratio,
      ...(red === undefined ? { and: [{ kind: 'ratio_to_peer_max' as const, value: 1.3, peer: 'ideal' }] } : {}),
    },
    note: `coord = the integrator with --check '${CHECK}' --window 4 (cumulative merges, 4 checks at once, CAS to the longest green prefix${red === undefined ? '' : `; task ${red} red: taken out, the rest merged again, window halved`}); floor = the same with --window 1; in process on SQLite, main not checked out`,
    contenders: {
      coord: () => run(4, red),
      floor: () => run(1, red),
      ...(red === undefined
        ? {
            // The ideal: TASKS / 4 windows of one check each, plus everything but the checks' sleep measured
            // alone (the same window-4 run with a check that does nothing).
            peers: { ideal: async () => (TASKS / 4) * CHECK_S * 1000 + Number(await run(4, undefined, 'true')) },
          }
        : {}),
    },
  });

export default windowRow(undefined, 0.4);
export const integrateWindowRed = windowRow(TASKS / 2 - 1, 0.6);
