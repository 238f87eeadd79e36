/**
 * PostgreSQL: claim + complete, 4 workers, 1 or 2 daemons, 20k backlog (quick: 2k).
 * coord: real `coord serve --store postgres://…` daemons (dist/) on one fresh database, 4 workers over HTTP
 *        (claim-next + submit) split across them (bench/coord/pg-contender.ts).
 * floor: bare `pg` conditional-UPDATE loop with FOR UPDATE SKIP LOCKED (floors/pg-update-loop.ts).
 * peers: pg-boss 10.4.2 — 'pg-boss work()' (send + work, the documented consumer) and
 *        'pg-boss fetch()' (its pull API at full speed), peers/pg-boss-cycle.ts.
 * target: coord ≥ 50 % of the bare loop and ≥ 10× pg-boss, judged against the better of the two pg-boss figures
 *         (in practice fetch() flat out; work() is capped near 8 jobs/s by its 0.5 s polling).
 * Skipped (saying why) when no PostgreSQL is available: see lib/pg.ts.
 */

import { coordPgDrain } from '../coord/pg-contender.js';
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

/** The same row for one daemon and for two, so the two rows can only differ in the daemon count. */
export const pgClaimComplete = (DAEMONS: 1 | 2) =>
  defineScenario({
    name: `PostgreSQL claim + complete, ${WORKERS} workers, ${DAEMONS} daemon${DAEMONS > 1 ? 's' : ''}`,
    metric: 'jobs/s',
    unit: 'jobs/s',
    better: 'higher',
    target: {
      kind: 'ratio_to_floor_min',
      value: 0.5,
      and: [{ kind: 'ratio_to_peer_min', value: 10, best_of: ['pg-boss work()', 'pg-boss fetch()'] }],
      // The bound: at most 2 round trips per job (claim-next + submit), as the bare loop makes.
      extra_max: { round_trips_per_job: 2 },
    },
    note: `${BACKLOG} backlog inserted untimed; coord: ${DAEMONS} daemon${DAEMONS > 1 ? 's' : ''} from dist/, ${WORKERS} HTTP workers (claim-next + submit, another process) drain it for at most ${FETCH_MAX_S} s, like pg-boss fetch(); the floor drains it, pg-boss fetch() drains it for at most ${FETCH_MAX_S} s; pg-boss work() (batchSize 1, 0.5 s polling, the minimum) counted over ${WORK_WINDOW_S} s; floor and peers are shared with the other PostgreSQL row; extra.round_trips_per_job = the daemons' queries to PostgreSQL during the timed drain (GET /v1/health round_trips; the workers' untimed warm-up excluded; the drain's last empty claim-nexts, one per worker, and the daemons' 1 s sweep included) ÷ jobs completed (the floor makes 2, and one empty claim per worker); the ≥ 10× pg-boss target is judged against the better pg-boss figure (in practice fetch(): work() is bounded by its 0.5 s polling, ≈ 8 jobs/s, so 10× work() alone would be a low bar)`,
    available: pgUnavailable,
    contenders: {
      coord: () => coordPgDrain(DAEMONS, BACKLOG, WORKERS, FETCH_MAX_S),
      floor: pgFloor,
      peers: { 'pg-boss work()': pgBossWork, 'pg-boss fetch()': pgBossFetch },
    },
  });
