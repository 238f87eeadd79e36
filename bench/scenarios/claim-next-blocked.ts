/**
 * SPEC §11: claim-next in process with 100k queued tasks (quick: 20k) of which half
 * are blocked, against the same with none blocked, in one run.
 * coord: SqliteStore.claimNext (bench/coord/claim-next.ts) on the half-blocked file;
 *        the blocked half is the older half, waiting for one task that stays claimed.
 * floor: the very same coord claim-next on a file of as many queued tasks, none blocked.
 * target: ≥ 0.9× — readiness costs claim-next (nearly) nothing.
 */
import { runCoordClaims } from '../coord/claim-next.js';
import { depsTemplate } from '../coord/deps-seed.js';
import { pick } from '../lib/config.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

const ROWS = pick(20_000, 100_000);
const CLAIMS = pick(5_000, 40_000);
const WARMUP = 500;

let half = '';
let none = '';

const claims = async (template: string) => {
  const db = freshCopy(template);
  try {
    return await runCoordClaims({ path: db.path, claims: CLAIMS, warmup: WARMUP });
  } finally {
    db.cleanup();
  }
};

export default defineScenario({
  name: `claim-next with ${ROWS / 1000}k queued, half blocked vs none blocked`,
  metric: 'claims/s',
  unit: 'claims/s',
  better: 'higher',
  target: { kind: 'ratio_to_floor_min', value: 0.9 },
  note: `${CLAIMS} claims after ${WARMUP} warm-up claims; coord = SqliteStore.claimNext with ${ROWS / 2} of the ${ROWS} queued tasks blocked (the older half, waiting for one claimed task); floor = the same coord claim-next with none blocked`,
  async setup() {
    half = await depsTemplate(ROWS, ROWS / 2);
    none = await depsTemplate(ROWS, 0);
  },
  contenders: {
    coord: () => claims(half),
    floor: () => claims(none),
  },
});
