import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { dumpSchema, migratedSchema, SCHEMA_FILE } from '../../scripts/dump-schema.js';
import { operations as op } from '../../src/core/operations.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { storeMigrations } from '../../src/store/shared/migrations.js';
import { PEEK_NEXT } from '../../src/store/sqlite/claim.js';
import { anyDue } from '../../src/store/sqlite/due.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { type Harness, harness, makeSqliteStore, tempDir } from '../support/ctx.js';
import { runStoreContract } from './contract.js';

runStoreContract('sqlite', makeSqliteStore);

const S = 1000;

/** A harness whose store fails at once (instead of waiting 5 s) when it needs a write lock it cannot get. */
async function impatient(): Promise<Harness & { db: Database.Database }> {
  const h = await harness(makeSqliteStore);
  const db = (h.store as SqliteStore).db;
  db.pragma('busy_timeout = 0');
  return { ...h, db };
}

/** Runs `fn` while a second connection on the same file holds SQLite's write lock. */
async function whileAnotherWriterHoldsTheLock<T>(db: Database.Database, fn: () => Promise<T>): Promise<T> {
  const other = new Database(db.name);
  other.exec('BEGIN IMMEDIATE');
  try {
    return await fn();
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
}

/** SQLITE_BUSY reaches callers as store_unavailable saying the file is locked (src/store/sqlite/sqlite-errors.ts). */
const busy = (e: unknown): boolean =>
  (e as { code?: string }).code === 'store_unavailable' && /locked by another process/.test((e as Error).message);

describe('sqlite: an empty poll never opens a write transaction', () => {
  test('an inbox read and a claim-next on an empty board answer while another connection holds the write lock', async () => {
    const h = await impatient();
    const answers = await whileAnotherWriterHoldsTheLock(h.db, async () => [
      await h.call(op.inbox, { agent: 'dave' }),
      await h.call(op.claimNext, { agent: 'dave' }),
      await h.store.inbox({ agent: 'dave', board: 'default', limit: 20 }),
    ]);
    assert.equal(answers[1], null);
    await h.store.close();
  });

  test('with claims live and only private tasks of others queued, inbox, inbox since and claim-next still need no write lock', async () => {
    const h = await impatient();
    const held = await h.call(op.createTask, { title: 'held', agent: 'alice' });
    await h.call(op.claimTask, { task_id: held.task.id, agent: 'bob', lease_s: 60 });
    await h.call(op.createTask, { title: 'for carol', for: 'carol', agent: 'alice' });
    h.clock.advance(59 * S);
    await whileAnotherWriterHoldsTheLock(h.db, async () => {
      const { cursor } = await h.call(op.inbox, { agent: 'dave' });
      await h.call(op.inbox, { agent: 'bob', since: cursor });
      assert.equal(await h.call(op.claimNext, { agent: 'dave' }), null);
      await h.call(op.showTask, { task_id: held.task.id });
      await h.call(op.listTasks, {});
    });
    await h.store.close();
  });

  test('by contrast, once a lease is due the same inbox read needs the write lock (SQLITE_BUSY while another writer holds it)', async () => {
    const h = await impatient();
    const held = await h.call(op.createTask, { title: 'held', agent: 'alice' });
    await h.call(op.claimTask, { task_id: held.task.id, agent: 'bob', lease_s: 60 });
    h.clock.advance(60 * S);
    await whileAnotherWriterHoldsTheLock(h.db, async () => {
      await assert.rejects(h.call(op.inbox, { agent: 'dave' }), busy);
      await assert.rejects(h.call(op.claimNext, { agent: 'dave' }), busy);
    });
    const view = await h.call(op.inbox, { agent: 'dave' });
    assert.deepEqual(
      view.tasks.map((t) => t.state),
      ['queued'],
    );
    await h.store.close();
  });

  test('by contrast, a claim-next that finds a claimable task needs the write lock', async () => {
    const h = await impatient();
    await h.call(op.createTask, { title: 'open', agent: 'alice' });
    await whileAnotherWriterHoldsTheLock(h.db, async () => {
      await assert.rejects(h.call(op.claimNext, { agent: 'dave' }), busy);
    });
    assert.ok(await h.call(op.claimNext, { agent: 'dave' }));
    await h.store.close();
  });
});

describe('sqlite: the hot read-only queries are index probes', () => {
  const plan = (db: Database.Database, sql: string, params: Record<string, unknown>) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);

  test('the lazy-expiry due probe searches the lease and ttl indexes and never scans tasks', async () => {
    const store = (await makeSqliteStore(new ManualClock())) as SqliteStore;
    // Record the SQL anyDue prepares: a fresh connection object misses the statement cache.
    const seen: string[] = [];
    const spy = new Proxy(store.db, {
      get(target, prop) {
        if (prop === 'prepare') {
          return (sql: string) => {
            seen.push(sql);
            return target.prepare(sql);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    assert.equal(anyDue(spy, Date.now()), false);
    assert.equal(seen.length, 1);
    const details = plan(store.db, seen[0]!, { now: 0 });
    assert.ok(
      details.every((d) => !/\bSCAN tasks\b/.test(d)),
      details.join('\n'),
    );
    assert.ok(details.some((d) => d.includes('tasks_lease_due')));
    assert.ok(details.some((d) => d.includes('tasks_ttl_due')));
    await store.close();
  });

  test("claim-next's read-only peek searches the index of ready tasks (blocked ones are not in it) in claim order, sorting nothing", async () => {
    const store = (await makeSqliteStore(new ManualClock())) as SqliteStore;
    const details = plan(store.db, PEEK_NEXT, { board: 'b', agent: 'a', now: 0, kinds: null, labels: null });
    assert.ok(
      details.every((d) => !/\bSCAN tasks\b/.test(d)),
      details.join('\n'),
    );
    assert.ok(details.some((d) => d.includes('tasks_ready')));
    // Issue 36: a temporary b-tree per claim (ties of priority and created_at sorted by id) cost the peek ~40 %.
    assert.ok(
      details.every((d) => !/TEMP B-TREE/.test(d)),
      details.join('\n'),
    );
    await store.close();
  });
});

describe('sqlite: migrations', () => {
  test('the committed schema dump equals what the migrations produce (run `npm run schema:dump` after adding one)', () => {
    assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), migratedSchema());
  });

  test('a store file gets every numbered migration once, and reopening it applies nothing again', async () => {
    const path = `${tempDir()}/coord.db`;
    const first = new SqliteStore({ path });
    const versions = storeMigrations('sqlite').map((m) => m.version);
    assert.deepEqual(
      versions,
      versions.map((_, i) => i + 1),
      'migrations are numbered 0001, 0002, ... without gaps',
    );
    assert.equal(first.db.pragma('user_version', { simple: true }), versions.at(-1));
    assert.equal(dumpSchema(first.db), migratedSchema());
    await first.close();
    const again = new SqliteStore({ path });
    assert.equal(dumpSchema(again.db), migratedSchema());
    await again.close();
  });

  test('the store opens its file in WAL mode with a busy timeout and foreign keys on', async () => {
    const store = (await makeSqliteStore(new ManualClock())) as SqliteStore;
    assert.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(store.db.pragma('busy_timeout', { simple: true }), 5000);
    assert.equal(store.db.pragma('foreign_keys', { simple: true }), 1);
    await store.close();
  });
});

describe('sqlite: durability', () => {
  test('every acknowledged write is visible from a fresh connection opened right after it', async () => {
    const h = await harness(makeSqliteStore);
    const path = (h.store as SqliteStore).db.name;
    const row = (id: string) => {
      const db = new Database(path, { readonly: true });
      try {
        const r = db.prepare('SELECT state, claimed_by, lease_until, attempts FROM tasks WHERE id = ?').get(id) as {
          state: string;
          claimed_by: string | null;
          lease_until: number | null;
          attempts: number;
        };
        const { n } = db.prepare('SELECT count(*) AS n FROM events').get() as { n: number };
        const { a } = db.prepare('SELECT count(*) AS a FROM artifacts').get() as { a: number };
        return { ...r, events: n, artifacts: a };
      } finally {
        db.close();
      }
    };
    const { task } = await h.call(op.createTask, { title: 'durable', agent: 'alice' });
    assert.deepEqual(row(task.id), {
      state: 'queued',
      claimed_by: null,
      lease_until: null,
      attempts: 0,
      events: 1,
      artifacts: 0,
    });
    const grant = await h.call(op.claimTask, { task_id: task.id, agent: 'bob', lease_s: 60 });
    const t0 = h.clock.now();
    assert.deepEqual(row(task.id), {
      state: 'claimed',
      claimed_by: 'bob',
      lease_until: t0 + 60 * S,
      attempts: 1,
      events: 2,
      artifacts: 0,
    });
    h.clock.advance(10 * S);
    await h.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id });
    assert.equal(row(task.id).lease_until, t0 + 70 * S);
    await h.call(op.putArtifact, {
      task_id: task.id,
      claim_id: grant.claim_id,
      artifact_id: 'a',
      bytes: new Uint8Array([1, 2]),
    });
    assert.equal(row(task.id).artifacts, 1);
    await h.call(op.releaseTask, { task_id: task.id, claim_id: grant.claim_id });
    assert.equal(row(task.id).state, 'queued');
    const next = await h.call(op.claimTask, { task_id: task.id, agent: 'carol' });
    await h.call(op.submitResult, {
      task_id: task.id,
      claim_id: next.claim_id,
      status: 'completed',
      result: { ok: 1 },
    });
    assert.deepEqual(row(task.id), {
      state: 'completed',
      claimed_by: 'carol',
      lease_until: null,
      attempts: 2,
      events: 5,
      artifacts: 1,
    });
    const other = await h.call(op.createTask, { title: 'to cancel', agent: 'alice' });
    await h.call(op.cancelTask, { task_id: other.task.id, agent: 'alice' });
    assert.equal(row(other.task.id).state, 'cancelled');
    await h.store.close();
  });
});
