/**
 * PostgreSQL: claim + complete, 4 workers, 2 daemons, 20k backlog (quick: 2k).
 * floor: bare `pg` conditional-UPDATE loop with FOR UPDATE SKIP LOCKED (floors/pg-update-loop.ts).
 * peers: pg-boss 10.4.2 — 'pg-boss work()' (send + work, the documented consumer) and
 *        'pg-boss fetch()' (its pull API at full speed), peers/pg-boss-cycle.ts.
 * target: coord ≥ 50 % of the bare loop and ≥ 10× pg-boss (send + work).
 * Skipped (saying why) when no PostgreSQL is available: see lib/pg.ts.
 */

import { pgUnavailable } from '../lib/pg.js';
import {
  BACKLOG,
  FETCH_MAX_S,
  pgBossFetch,
  pgBossWork,
  pgFloor,
  WORK_WINDOW_S,
  WORKERS,
} from '../lib/pg-contenders.js';
import { defineScenario } from '../lib/types.js';

export const DAEMONS = 2;

export default defineScenario({
  name: `PostgreSQL claim + complete, ${WORKERS} workers, 2 daemons`,
  metric: 'jobs/s',
  unit: 'jobs/s',
  better: 'higher',
  target: {
    kind: 'ratio_to_floor_min',
    value: 0.5,
    and: [{ kind: 'ratio_to_peer_min', value: 10, peer: 'pg-boss work()' }],
  },
  note: `${BACKLOG} backlog inserted untimed; the floor drains it, pg-boss fetch() drains it for at most ${FETCH_MAX_S} s; pg-boss work() (batchSize 1, 0.5 s polling, the minimum) counted over ${WORK_WINDOW_S} s; floor and peers are shared with the other PostgreSQL row`,
  available: pgUnavailable,
  contenders: {
    // coord contender: plugged in by scenarios/pg-claim-complete-2-daemons.ts (see bench/README.md, "Plugging in coord")
    floor: pgFloor,
    peers: { 'pg-boss work()': pgBossWork, 'pg-boss fetch()': pgBossFetch },
  },
});
