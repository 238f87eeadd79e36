/**
 * claim-next in process (store API), 100k queued.
 * floor: bare better-sqlite3 UPDATE … RETURNING loop on a 100k-row table (floors/sqlite-claim-loop.ts).
 * target: coord ≥ 70 % of the floor's claims/s.
 */
import { FILE, seededTemplate } from '../floors/sqlite-claim-loop.js';
import { runChild } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

export const ROWS = pick(20_000, 100_000);
export const CLAIMS = pick(10_000, 50_000);
export const WARMUP = 500;

let template = '';

export default defineScenario({
  name: `claim-next in process (store API), ${ROWS / 1000}k queued`,
  metric: 'claims/s',
  unit: 'claims/s',
  better: 'higher',
  target: { kind: 'ratio_to_floor_min', value: 0.7 },
  note: `${CLAIMS} claims timed after ${WARMUP} warm-up claims, one autocommit statement each, fresh copy of the seeded file per round`,
  async setup() {
    template = await seededTemplate([{ rows: ROWS }]);
  },
  contenders: {
    // coord contender: plugged in by scenarios/claim-next-inprocess.ts (see bench/README.md, "Plugging in coord")
    floor: async () => {
      const db = freshCopy(template);
      try {
        return await runChild<number>(FILE, { op: 'claims', path: db.path, claims: CLAIMS, warmup: WARMUP });
      } finally {
        db.cleanup();
      }
    },
  },
});
