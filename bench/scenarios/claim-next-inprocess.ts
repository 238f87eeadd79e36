/**
 * claim-next in process (store API), 100k queued (quick: 20k).
 * coord: SqliteStore.claimNext through the Store port (bench/coord/claim-next.ts).
 * floor: bare better-sqlite3 UPDATE … RETURNING loop (floors/sqlite-claim-loop.ts) on coord's own
 *        schema (bench/coord/schema.ts): the same seeded file, the same table and indexes. The same
 *        loop on the floor's minimal two-index table is kept as a side figure (extra.minimal_schema).
 * target: coord ≥ 70 % of the floor's claims/s.
 */
import { runCoordClaims } from '../coord/claim-next.js';
import { coordSchema } from '../coord/schema.js';
import { FILE, seededTemplate } from '../floors/sqlite-claim-loop.js';
import { runChild } from '../lib/child.js';
import { pick, QUICK } from '../lib/config.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

export const ROWS = pick(20_000, 100_000);
export const CLAIMS = pick(5_000, 50_000);
export const WARMUP = 500;

let template = '';
let minimalTemplate = '';

const floorOn = async (tpl: string, schema?: ReturnType<typeof coordSchema>) => {
  const db = freshCopy(tpl);
  try {
    return await runChild<number>(FILE, { op: 'claims', path: db.path, claims: CLAIMS, warmup: WARMUP, schema });
  } finally {
    db.cleanup();
  }
};

export default defineScenario({
  name: `claim-next in process (store API), ${ROWS / 1000}k queued`,
  metric: 'claims/s',
  unit: 'claims/s',
  better: 'higher',
  target: { kind: 'ratio_to_floor_min', value: 0.7 },
  note: `${CLAIMS} claims timed after ${WARMUP} warm-up claims on a fresh copy of one seeded file with coord's schema; coord: SqliteStore.claimNext (due probe, peek, BEGIN IMMEDIATE, claim UPDATE + event); floor: one bare autocommit UPDATE … RETURNING per claim on the same table; extra.minimal_schema (full mode) = the same floor loop on the floor's own two-index table`,
  async setup() {
    template = await seededTemplate([{ rows: ROWS }], coordSchema());
    if (!QUICK) minimalTemplate = await seededTemplate([{ rows: ROWS }]);
  },
  contenders: {
    coord: async () => {
      const db = freshCopy(template);
      try {
        return await runCoordClaims({ path: db.path, claims: CLAIMS, warmup: WARMUP });
      } finally {
        db.cleanup();
      }
    },
    floor: async () => {
      const value = await floorOn(template, coordSchema());
      // The minimal-table side figure costs a third child per round: full mode only.
      return QUICK ? value : { value, extra: { minimal_schema: await floorOn(minimalTemplate) } };
    },
  },
});
