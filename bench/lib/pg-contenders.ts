/**
 * The PostgreSQL floor and peers, shared (memoised per round) by the 1-daemon and
 * 2-daemon scenarios so they are measured once per round in a run.
 */
import { runPgLoop } from '../floors/pg-update-loop.js';
import { runPgBoss } from '../peers/pg-boss-cycle.js';
import { pick } from './config.js';
import { memoByRound } from './memo.js';
import { pgDatabase } from './pg.js';

export const BACKLOG = pick(1_000, 20_000);
export const WORKERS = 4;
export const WORK_WINDOW_S = pick(1, 4);
/** pg-boss fetch() drains the backlog but stops after this long (it is the slowest contender). */
export const FETCH_MAX_S = pick(2, 20);

export const pgFloor = memoByRound(async () => runPgLoop({ url: await pgDatabase(), jobs: BACKLOG, workers: WORKERS }));

export const pgBossWork = memoByRound(async () =>
  runPgBoss({ url: await pgDatabase(), mode: 'work', jobs: BACKLOG, workers: WORKERS, windowS: WORK_WINDOW_S }),
);

export const pgBossFetch = memoByRound(async () =>
  runPgBoss({ url: await pgDatabase(), mode: 'fetch', jobs: BACKLOG, workers: WORKERS, windowS: FETCH_MAX_S }),
);
