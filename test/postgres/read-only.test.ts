/**
 * A PostgreSQL server that answers but will not write (a hot standby, default_transaction_read_only): every
 * write is a clear 503 store_unavailable saying what to do, reads keep answering, nothing is half-written,
 * and a daemon refuses to start on such a database with the same sentence instead of a raw SQL error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { operations as op } from '../../src/core/operations.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { harness } from '../support/ctx.js';
import { runCli } from '../support/daemon.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { makePostgresStore } from './make-store.js';

let server: PgServer;
let url = '';
before(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
});
after(() => server?.stop());

const dbName = (u: string) => new URL(u).pathname.slice(1);

async function setReadOnly(u: string, on: boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: server.url() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${dbName(u)}" SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    // The setting reaches new sessions only: end the store's pooled ones, as a failover would.
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [dbName(u)],
    );
  } finally {
    await admin.end();
  }
}

describe('postgres: a database that refuses writes', () => {
  test('writes answer store_unavailable naming the cause and what to do, reads still answer, and after it is writable again the retry succeeds once', async () => {
    const h = await harness(makePostgresStore(() => url));
    try {
      const kept = await h.call(op.createTask, { title: 'before', agent: 'alice' });
      await setReadOnly(url, true);
      const attempt = () => h.fail(op.createTask, { title: 'during', agent: 'alice', idempotency_key: 'k1' });
      // The first call after the backends were ended may meet a dead pooled connection (store_unavailable too).
      const err = await attempt().then((e) => (/read-only/.test(e.message) ? e : attempt()));
      assert.equal(err.code, 'store_unavailable');
      assert.match(err.message, /read-only .* point --store at the primary, or make it writable; nothing was written/);
      assert.doesNotMatch(err.message, /cannot execute|INSERT|UPDATE|SELECT/, 'no SQL text');
      const shown = await h.call(op.showTask, { task_id: kept.task.id });
      assert.equal(shown.task.title, 'before', 'reads keep answering');

      await setReadOnly(url, false);
      const retry = () => h.call(op.createTask, { title: 'during', agent: 'alice', idempotency_key: 'k1' });
      // As above, the first call may meet a pooled connection that was ended.
      const retried = await retry().catch(retry);
      assert.equal(retried.created, true, 'the refused write left nothing behind: its retry creates the task');
      const { tasks } = await h.call(op.listTasks, {});
      assert.deepEqual(tasks.map((t) => t.title).sort(), ['before', 'during']);
    } finally {
      await setReadOnly(url, false);
      await h.store.close();
    }
  });

  test('coord serve refuses to start on a read-only database with that sentence, not a raw SQL error', async () => {
    const fresh = await server.createDatabase();
    await setReadOnly(fresh, true);
    const cli = await runCli([
      'serve',
      '--port',
      '0',
      '--state',
      (await import('../support/ctx.js')).tempDir(),
      '--store',
      fresh,
    ]);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, /could not start: .*PostgreSQL refuses writes: the database is read-only/);
    assert.doesNotMatch(cli.stderr, /CREATE TABLE/);
    // And nothing is left half-made: once writable, a store opens and migrates it.
    await setReadOnly(fresh, false);
    await (await PostgresStore.open({ url: fresh })).close();
  });
});
