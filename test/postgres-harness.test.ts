/**
 * Proves the real-PostgreSQL helper in test/support/postgres.ts works:
 *   node --import tsx --test test/postgres-harness.test.ts
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type PgServer, startPostgres } from './support/postgres.js';
import { waitFor } from './support/wait-for.js';

const CHILD = fileURLToPath(new URL('./support/postgres/crash-child.ts', import.meta.url));

/** A connected client whose 'error' events (server dying under it) are recorded, not thrown. */
async function connect(url: string): Promise<pg.Client & { errors: Error[] }> {
  const client = Object.assign(new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 }), {
    errors: [] as Error[],
  });
  client.on('error', (err) => client.errors.push(err));
  await client.connect();
  return client;
}

function isConnectionError(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03'].includes(String(e.code)) ||
    /Connection terminated|connection error|not queryable|terminating connection|ECONNREFUSED/i.test(e.message)
  );
}

function pidAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

/** How long `cond` took to hold, in ms (reported, never asserted). */
async function msUntil(what: string, cond: () => boolean, deadlineMs: number): Promise<number> {
  const start = performance.now();
  await waitFor(cond, what, deadlineMs);
  return Math.round(performance.now() - start);
}

describe('startPostgres', () => {
  let server: PgServer;
  let startMs = 0;

  before(async () => {
    const t = performance.now();
    server = await startPostgres();
    startMs = Math.round(performance.now() - t);
  });

  after(async () => {
    await server?.stop();
  });

  test('the server runs and answers on url()', async (t) => {
    t.diagnostic(`startPostgres: ${startMs} ms (port ${server.port})`);
    assert.ok(server.running);
    assert.ok(server.port > 0);
    assert.match(server.url('x'), /^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/x$/);
    const c = await connect(server.url());
    const { rows } = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    assert.match(rows[0]!.v, /^\d+\.\d+/);
    await c.end();
  });

  test('SELECT now() works via pg', async () => {
    const url = await server.createDatabase();
    const c = await connect(url);
    const before = Date.now();
    const { rows } = await c.query<{ now: Date }>('SELECT now() AS now');
    assert.ok(rows[0]!.now instanceof Date);
    assert.ok(Math.abs(rows[0]!.now.getTime() - before) < 60_000);
    await c.end();
  });

  test('two fresh databases are independent', async (t) => {
    const t0 = performance.now();
    const urlA = await server.createDatabase();
    const t1 = performance.now();
    const urlB = await server.createDatabase();
    const t2 = performance.now();
    t.diagnostic(`createDatabase: ${Math.round(t1 - t0)} ms, then ${Math.round(t2 - t1)} ms`);
    assert.notEqual(urlA, urlB);

    const a = await connect(urlA);
    const b = await connect(urlB);
    await a.query('CREATE TABLE only_in_a (id int)');
    await a.query('INSERT INTO only_in_a VALUES (1)');
    const inB = await b.query("SELECT to_regclass('only_in_a') AS t");
    assert.equal(inB.rows[0].t, null);
    await b.query('CREATE TABLE only_in_a (id int)'); // same name, no clash
    const countB = await b.query('SELECT count(*)::int AS n FROM only_in_a');
    assert.equal(countB.rows[0].n, 0);
    const dbs = await Promise.all([a, b].map(async (c) => (await c.query('SELECT current_database() AS d')).rows[0].d));
    assert.notEqual(dbs[0], dbs[1]);
    await Promise.all([a.end(), b.end()]);

    const named = await server.createDatabase('explicit_name');
    assert.match(named, /\/explicit_name$/);
  });

  test('kill9 breaks open and new connections; restart brings the server back with its data', async (t) => {
    const url = await server.createDatabase();
    const setup = await connect(url);
    await setup.query('CREATE TABLE survived (id int)');
    await setup.query('INSERT INTO survived VALUES (42)'); // committed before the crash
    await setup.end();

    const idle = await connect(url);
    const busy = await connect(url);
    const inFlight = busy.query('SELECT pg_sleep(30)').then(
      () => assert.fail('a query survived kill9'),
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 100)); // let pg_sleep start

    const k0 = performance.now();
    await server.kill9();
    t.diagnostic(`kill9: ${Math.round(performance.now() - k0)} ms`);
    assert.equal(server.running, false);

    const inFlightErr = await inFlight;
    assert.ok(isConnectionError(inFlightErr), `in-flight query: ${String(inFlightErr)}`);
    await assert.rejects(idle.query('SELECT 1'), (err) => isConnectionError(err));
    await assert.rejects(connect(url), (err) => isConnectionError(err));
    await Promise.all([idle.end().catch(() => {}), busy.end().catch(() => {})]);

    const port = server.port;
    const r0 = performance.now();
    await server.restart();
    t.diagnostic(`restart after kill9 (with crash recovery): ${Math.round(performance.now() - r0)} ms`);
    assert.equal(server.port, port);
    assert.ok(server.running);

    const again = await connect(url);
    const { rows } = await again.query('SELECT id FROM survived');
    assert.deepEqual(rows, [{ id: 42 }]);
    await again.end();

    // A restart of a running server is a clean stop + start.
    await server.restart();
    const third = await connect(server.url());
    await third.query('SELECT 1');
    await third.end();
  });

  test('stop() shuts down, removes the data directory and is idempotent', async () => {
    const other = await startPostgres();
    const dataDir = other.dataDir;
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    assert.ok(pidAlive(pid));
    await other.stop();
    assert.equal(pidAlive(pid), false);
    assert.equal(fs.existsSync(path.dirname(dataDir)), false);
    await other.stop();
    await assert.rejects(other.restart(), /stopped/);
    await assert.rejects(other.kill9(), /not running/);
  });

  test('an explicit port is honoured', async () => {
    const probe = await startPostgres();
    const port = probe.port;
    await probe.stop();
    const fixed = await startPostgres({ port });
    try {
      assert.equal(fixed.port, port);
      const c = await connect(fixed.url());
      await c.query('SELECT 1');
      await c.end();
    } finally {
      await fixed.stop();
    }
  });
});

describe('process-wide cleanup when a test process dies without stop()', () => {
  /** Run the child in `mode`; returns what it reported and how it ended. */
  function runChild(mode: string): Promise<{
    info: { pid: number; dataDir: string };
    stdout: string;
    code: number | null;
    signal: NodeJS.Signals | null;
  }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, COORD_TEST_VERBOSE: '' },
      });
      let stdout = '';
      let stderr = '';
      let info: { pid: number; dataDir: string } | undefined;
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (!info && stdout.includes('\n')) {
          info = JSON.parse(stdout.split('\n')[0]!);
          if (mode === 'hang') child.kill('SIGKILL');
        }
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (!info) reject(new Error(`child (${mode}) reported nothing; code ${code}, stderr:\n${stderr}`));
        else resolve({ info, stdout, code, signal });
      });
    });
  }

  for (const [mode, expectSignal, expectCode] of [
    ['exit', null, 3],
    ['throw', null, 1],
    ['sigterm', 'SIGTERM', null],
    ['forget', null, 0],
  ] as const) {
    test(`${mode}: the exit hook stops the server and removes its data before the process is gone`, async () => {
      const { info, stdout, code, signal } = await runChild(mode);
      assert.equal(signal, expectSignal);
      assert.equal(code, expectCode);
      // Nothing but the child's own line on stdout (the helper is silent without COORD_TEST_VERBOSE).
      assert.equal(stdout.trim().split('\n').length, 1);
      assert.equal(pidAlive(info.pid), false, 'postmaster still running');
      assert.equal(fs.existsSync(path.dirname(info.dataDir)), false, 'run directory left behind');
    });
  }

  test('SIGKILLed process: the watchdog stops the server and removes its data', async (t) => {
    const { info, signal } = await runChild('hang');
    assert.equal(signal, 'SIGKILL');
    const waited = await msUntil('postmaster to stop', () => !pidAlive(info.pid), 15_000);
    await waitFor(() => !fs.existsSync(path.dirname(info.dataDir)), 'run directory removal', 15_000);
    t.diagnostic(`watchdog cleaned up ${waited} ms after the SIGKILL`);
  });
});
