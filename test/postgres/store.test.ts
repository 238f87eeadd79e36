/** What only the PostgreSQL store has to prove: its migrations, its schema dump, its plans, its read-only polls. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { migratedPgSchema, PG_SCHEMA_FILE } from '../../scripts/dump-pg-schema.js';
import { operations as op } from '../../src/core/operations.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { clientConfig } from '../../src/store/postgres/database.js';
import { probeSql, sweepProbeSql } from '../../src/store/postgres/due.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { rows } from '../../src/store/postgres/sql.js';
import { storeMigrations } from '../../src/store/shared/migrations.js';
import { waitFor } from '../live/helpers.js';
import { type Harness, harness } from '../support/ctx.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { makePostgresStore } from './make-store.js';

const S = 1000;
let server: PgServer;
let url = '';
before(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  // Migrate the database's own (public) schema, which the plan tests read.
  await (await PostgresStore.open({ url })).close();
});
after(() => server?.stop());

describe('postgres: migrations', () => {
  test('the committed schema dump equals what the migrations produce (run `npm run schema:dump:pg` after adding one)', async () => {
    assert.equal(readFileSync(PG_SCHEMA_FILE, 'utf8'), await migratedPgSchema(await server.createDatabase()));
  });

  test('four stores opening one fresh database at once (as four daemons starting together would) apply each numbered migration exactly once', async () => {
    const versions = storeMigrations('postgres').map((m) => m.version);
    assert.deepEqual(
      versions,
      versions.map((_, i) => i + 1),
      'migrations are numbered 0001, 0002, ... without gaps',
    );
    const fresh = await server.createDatabase();
    const stores = await Promise.all([1, 2, 3, 4].map(() => PostgresStore.open({ url: fresh, max: 2 })));
    const applied = await stores[0]!.pool.query<{ version: number }>('SELECT version FROM coord_migrations');
    assert.deepEqual(
      applied.rows.map((r) => r.version).sort((a, b) => a - b),
      versions,
    );
    await Promise.all(stores.map((s) => s.close()));
    const again = await PostgresStore.open({ url: fresh });
    assert.equal(
      (await again.pool.query('SELECT count(*)::int AS n FROM coord_migrations')).rows[0].n,
      versions.length,
    );
    assert.equal(again.capabilities.databaseClock, true);
    assert.equal(again.capabilities.crossProcessEvents, true);
    await again.close();
  });
});

describe('postgres: the hot read-only queries can use an index', () => {
  const plan = async (sql: string, params: object = {}) => {
    const client = new pg.Client(clientConfig({ url }));
    await client.connect();
    try {
      // With sequential scans priced out, a Seq Scan in the plan means no index fits.
      await client.query('SET enable_seqscan = off');
      const found = await rows<{ 'QUERY PLAN': string }>(client, `EXPLAIN ${sql}`, params);
      return found.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await client.end();
    }
  };

  test('the lazy-expiry due probe never scans tasks', async () => {
    const text = await plan(probeSql(Date.now()));
    assert.doesNotMatch(text, /Seq Scan/, text);
    assert.match(text, /tasks_ttl_due/, text);
  });

  test("the sweep's probe (tasks due, plain locks lapsed) never scans tasks or locks", async () => {
    const text = await plan(sweepProbeSql(Date.now()));
    assert.doesNotMatch(text, /Seq Scan/, text);
    assert.match(text, /tasks_ttl_due/, text);
    assert.match(text, /locks_lease_due/, text);
  });

  /**
   * The plans of the statements a server-side function runs, as it runs them (auto_explain, nested statements,
   * sent back as notices), in a transaction that is rolled back.
   */
  const nestedPlans = async (setup: string, call: string): Promise<string[]> => {
    const client = new pg.Client(clientConfig({ url }));
    await client.connect();
    const plans: string[] = [];
    client.on('notice', (n) => plans.push(n.message ?? ''));
    try {
      await client.query("LOAD 'auto_explain'");
      await client.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
        SET auto_explain.log_level = notice; SET enable_seqscan = off`);
      await client.query('BEGIN');
      await client.query(setup);
      // Twice: the second call runs the plans the function keeps (its plan cache), as every later call does.
      await client.query(call);
      plans.length = 0;
      await client.query(call);
      return plans;
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      await client.end();
    }
  };

  test("claim-next's look and its claim, inside coord_claim_next, walk the ready-queue index (queued, no open blockers)", async () => {
    const plans = await nestedPlans(
      `INSERT INTO tasks (id, board, kind, title, created_by, state, created_at, updated_at, expires_at, payload_hash,
                          labels)
       SELECT 'explain-' || i, 'b', 'bug', 't', 'a', 'queued', i, i, 9e12, 'h', '{x}' FROM generate_series(1, 2) AS i`,
      "SELECT * FROM coord_claim_next('b', 'a', '{bug}', '{x}', 'claim-explain', 60000, NULL, NULL)",
    );
    const look = plans.find((p) => /Query Text: SELECT CASE/.test(p));
    const claim = plans.find((p) => /Query Text: UPDATE tasks/.test(p));
    assert.ok(look && claim, `the look and the claim ran:\n${plans.join('\n---\n')}`);
    for (const text of [look, claim]) {
      assert.doesNotMatch(text, /Seq Scan/, text);
      assert.match(text, /Index Scan using tasks_ready on tasks/, text);
    }
    assert.match(claim, /LockRows/, 'the claim locks only the candidate it takes (FOR UPDATE SKIP LOCKED)');
  });
});

describe('postgres: an empty poll never opens a write transaction', () => {
  /** Another session holding EXCLUSIVE locks: reads pass, any write or row lock must wait for it. */
  async function tablesLocked(h: Harness) {
    const schema = (await (h.store as PostgresStore).pool.query('SELECT current_schema() AS s')).rows[0].s;
    const other = new pg.Client(clientConfig({ url, schema }));
    await other.connect();
    await other.query('BEGIN');
    await other.query('LOCK TABLE tasks, events, locks, lock_resources, artifacts IN EXCLUSIVE MODE');
    return {
      /** True once some session waits for one of our locks. */
      blocking: async () =>
        (await other.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype = 'relation'"))
          .rows[0].n > 0,
      release: async () => {
        await other.query('ROLLBACK');
        await other.end();
      },
    };
  }

  test('inbox, inbox since, claim-next, show, list and list locks answer while every table is locked against writes', async () => {
    const h = await harness(makePostgresStore(() => url));
    const held = await h.call(op.createTask, { title: 'held', agent: 'alice' });
    await h.call(op.claimTask, { task_id: held.task.id, agent: 'bob', lease_s: 60 });
    await h.call(op.createTask, { title: 'for carol', for: 'carol', agent: 'alice' });
    h.clock.advance(59 * S);
    const lock = await tablesLocked(h);
    try {
      const { cursor } = await h.call(op.inbox, { agent: 'dave' });
      await h.call(op.inbox, { agent: 'bob', since: cursor });
      assert.equal(await h.call(op.claimNext, { agent: 'dave' }), null);
      await h.call(op.showTask, { task_id: held.task.id });
      await h.call(op.listTasks, {});
      await h.call(op.listLocks, {});
      assert.equal(await h.store.sweep(), 0);
    } finally {
      await lock.release();
      await h.store.close();
    }
  });

  test('by contrast, once a lease is due the same inbox read waits for the write lock, then moves the task', async () => {
    const h = await harness(makePostgresStore(() => url));
    const held = await h.call(op.createTask, { title: 'held', agent: 'alice' });
    await h.call(op.claimTask, { task_id: held.task.id, agent: 'bob', lease_s: 60 });
    h.clock.advance(60 * S);
    const lock = await tablesLocked(h);
    const view = h.call(op.inbox, { agent: 'dave' });
    await waitFor(lock.blocking, 'the inbox to wait for the write lock');
    await lock.release();
    assert.deepEqual(
      (await view).tasks.map((t) => [t.id, t.state]),
      [[held.task.id, 'queued']],
    );
    await h.store.close();
  });
});

describe('postgres: text PostgreSQL cannot hold', () => {
  test('a title with a NUL character is refused with invalid_request, and nothing is written', async () => {
    const h = await harness(makePostgresStore(() => url));
    const err = await h.fail(op.createTask, { title: 'a\u0000b', agent: 'alice' });
    assert.equal(err.code, 'invalid_request');
    assert.deepEqual((await h.call(op.listEvents, {})).events, []);
    await h.store.close();
  });
});

describe('postgres: time', () => {
  test('with an injected clock (tests only) the store says so in its capabilities', async () => {
    const store = await makePostgresStore(() => url)(new ManualClock());
    assert.equal(store.capabilities.databaseClock, false);
    await store.close();
  });
});
