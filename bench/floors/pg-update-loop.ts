/**
 * Floor (PostgreSQL): a bare `pg` claim + complete loop. W workers, each on its
 * own connection, claim the next queued task with a conditional
 * UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED) RETURNING and complete it
 * with a fenced UPDATE (… AND claim_id = $ AND state = 'claimed'), until the
 * backlog is empty. The backlog is inserted untimed (generate_series) into a
 * schema of its own, dropped afterwards. Result: jobs/s.
 */
import pg from 'pg';
import { childMain, runChild } from '../lib/child.js';

export const FILE = 'bench/floors/pg-update-loop.ts';

export interface PgLoopArgs {
  url: string;
  jobs: number;
  workers: number;
}

export const PG_FLOOR_DDL = (schema: string) => `
CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.tasks (
  id          text PRIMARY KEY,
  board       text NOT NULL,
  kind        text NOT NULL,
  title       text NOT NULL,
  body        text NOT NULL DEFAULT '',
  state       text NOT NULL,
  priority    integer NOT NULL DEFAULT 0,
  created_at  bigint NOT NULL,
  claimed_by  text,
  claim_id    text,
  lease_until bigint,
  attempts    integer NOT NULL DEFAULT 0,
  result      text
);
CREATE INDEX ON ${schema}.tasks (board, state, priority, created_at);`;

/** The floor's statements in `schema`: the seed ($1 tasks), the claim ($1 agent, $2 claim id, $3 lease, $4 board), the fenced complete. */
export const PG_FLOOR_SQL = (schema: string) => ({
  seed: `INSERT INTO ${schema}.tasks (id, board, kind, title, body, state, priority, created_at)
     SELECT 'task-' || i, 'default', 'bench', 'task ' || i, 'a small body for task number ' || i, 'queued', i % 3, 1700000000000 + i
     FROM generate_series(1, $1) AS i`,
  claim: `UPDATE ${schema}.tasks SET state = 'claimed', claimed_by = $1, claim_id = $2, lease_until = $3, attempts = attempts + 1
    WHERE id = (SELECT id FROM ${schema}.tasks WHERE board = $4 AND state = 'queued'
                ORDER BY priority, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id, claim_id`,
  complete: `UPDATE ${schema}.tasks SET state = 'completed', result = $1
    WHERE id = $2 AND claim_id = $3 AND state = 'claimed'`,
});

export const runPgLoop = (a: PgLoopArgs): Promise<number> => runChild<number>(FILE, a, { timeoutMs: 300_000 });

childMain<PgLoopArgs>(FILE, async (a) => {
  const schema = `bench_floor_${process.pid}`;
  const admin = new pg.Client({ connectionString: a.url });
  await admin.connect();
  await admin.query(PG_FLOOR_DDL(schema));
  await admin.query(PG_FLOOR_SQL(schema).seed, [a.jobs]);
  await admin.query(`VACUUM ANALYZE ${schema}.tasks`);
  const { claim: claimSql, complete: completeSql } = PG_FLOOR_SQL(schema);
  const clients = await Promise.all(
    Array.from({ length: a.workers }, async () => {
      const c = new pg.Client({ connectionString: a.url });
      await c.connect();
      return c;
    }),
  );
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c, w) => {
      for (let i = 0; ; i++) {
        const r = await c.query({
          name: 'claim',
          text: claimSql,
          values: [`agent-${w}`, `c${w}-${i}`, Date.now() + 300_000, 'default'],
        });
        const row = r.rows[0] as { id: string; claim_id: string } | undefined;
        if (!row) return;
        const u = await c.query({ name: 'complete', text: completeSql, values: ['{"ok":true}', row.id, row.claim_id] });
        if (u.rowCount !== 1) throw new Error('fence lost');
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - t0) / 1000);
  await Promise.all(clients.map((c) => c.end()));
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  if (done !== a.jobs) throw new Error(`completed ${done} of ${a.jobs}`);
  return rate;
});
