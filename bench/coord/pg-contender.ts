/**
 * coord contender for the PostgreSQL rows: 1 or 2 real `coord serve --store postgres://…`
 * daemons (from dist/, each with its own state directory) on one fresh database, a
 * backlog inserted untimed into coord's own tasks table (generate_series, then VACUUM
 * ANALYZE, as the floor's and pg-boss's backlogs are), and W workers over HTTP
 * (bench/coord/http-workers.ts, another process) draining it with claim + submit.
 * The first daemon creates the schema (its migrations); the second finds it migrated.
 */
import pg from 'pg';
import { pgDatabase } from '../lib/pg.js';
import { type CoordDaemon, startCoordDaemon } from './daemon.js';
import { runHttpWorkers } from './http-workers.js';
import { FAR_EXPIRY } from './schema.js';

async function seed(url: string, jobs: number): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO tasks (id, board, kind, title, body, priority, created_by, state, created_at, updated_at,
                          expires_at, payload_hash)
       SELECT 't' || lpad(i::text, 7, '0'), 'default', 'bench', 'task ' || i, 'a small body for task number ' || i,
              i % 3, 'bench', 'queued', 1700000000000 + i, 1700000000000 + i, $2, 'h'
       FROM generate_series(1, $1) AS i`,
      [jobs, FAR_EXPIRY],
    );
    await c.query('VACUUM ANALYZE tasks');
  } finally {
    await c.end();
  }
}

async function completed(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query("SELECT count(*)::int AS n FROM tasks WHERE state = 'completed'")).rows[0].n as number;
  } finally {
    await c.end();
  }
}

/**
 * jobs/s of `workers` HTTP workers draining `jobs` tasks through `daemons` daemons, for at most `maxS` seconds;
 * extra.round_trips_per_job: the daemons' queries to PostgreSQL during the timed drain (the workers' untimed
 * warm-up excluded; the drain's last empty claim-nexts and the daemons' 1 s sweep included) ÷ jobs completed.
 */
export async function coordPgDrain(
  daemons: number,
  jobs: number,
  workers: number,
  maxS?: number,
  /** Across a link (pg-link.ts): the daemons reach the database at `linkedUrl`; seeding and counting use `url`. */
  link?: { url: string; linkedUrl: string },
  /** Extra node flags for the daemons (e.g. --cpu-prof, for a profile of this load). */
  nodeArgs?: string[],
): Promise<{ value: number; extra: Record<string, number> }> {
  const url = link?.url ?? (await pgDatabase());
  const ds: CoordDaemon[] = [];
  try {
    for (let i = 0; i < daemons; i++)
      ds.push(await startCoordDaemon({ store: link?.linkedUrl ?? url, ...(nodeArgs ? { nodeArgs } : {}) }));
    await seed(url, jobs);
    const targets = ds.map((d) => ({ url: d.url, token: d.token }));
    const { rate, roundTrips } = await runHttpWorkers({ targets, workers, expect: jobs, ...(maxS ? { maxS } : {}) });
    return { value: rate, extra: { round_trips_per_job: (roundTrips ?? Number.NaN) / (await completed(url)) } };
  } finally {
    await Promise.all(ds.map((d) => d.stop()));
  }
}
