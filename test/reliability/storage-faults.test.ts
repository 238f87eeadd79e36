/**
 * Storage faults (issue 8, item 4): a full disk, a read-only file or file system, a corrupt or foreign coord.db,
 * a lock held too long by another process. Each gives a clear answer naming the file and what to do, never a
 * silent loss: the daemon refuses to start on a database it cannot trust (leaving it byte-for-byte unchanged),
 * and at run time a write the disk refuses answers 503 store_unavailable, is not half-applied, and succeeds
 * when retried once the fault is gone. Real daemons, real tmpfs mounts, a real second process for the lock.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { operations as op } from '../../src/core/operations.js';
import { storeMigrations } from '../../src/store/shared/migrations.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { UntrustedDatabase } from '../../src/store/sqlite/sqlite-errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { mcpHarness } from '../mcp/harness.js';
import { harness, tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import {
  bindReadOnly,
  cannotMount,
  cannotShutDown,
  type DyingDisk,
  dyingDisk,
  type SmallDisk,
  sha256,
  sidecars,
  smallDisk,
  stateDirIn,
} from './fault-fs.js';

const FIXTURES = new URL('./fixtures', import.meta.url).pathname;
const LAST_VERSION = storeMigrations('sqlite').at(-1)!.version;
const figures = { faults: 0, refusedStarts: 0, pagesCorrupted: 0, answersChecked: 0 };
function printFigures(): void {
  console.log(`# faults tried: ${figures.faults}`);
  console.log(`# untrusted starts refused (file unchanged): ${figures.refusedStarts}`);
  console.log(`# b-tree pages overwritten with random bytes, each refused: ${figures.pagesCorrupted}`);
  console.log(`# answers and CLI outputs checked free of SQL text and stack traces: ${figures.answersChecked}`);
}

/** What a user sees must be a sentence: no SQL statement, no stack frame, no driver class name. */
function assertClean(text: string): void {
  figures.answersChecked += 1;
  assert.doesNotMatch(text, /\b(INSERT|UPDATE|SELECT|DELETE FROM|CREATE TABLE|BEGIN|PRAGMA)\b/, text);
  assert.doesNotMatch(text, /\bat \S+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|SqliteError|SQLITE_/, text);
}

/** A seeded PRNG (mulberry32): a failure names its seed and replays exactly. */
function random(seed: number): (n: number) => Buffer {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) & 0xff;
  };
  return (n) => Buffer.from(Array.from({ length: n }, next));
}

const post = (d: SpawnedDaemon, title: string, key: string) =>
  d.fetch('/v1/tasks', {
    method: 'POST',
    json: { title, agent: 'writer', idempotency_key: key, body: `${title} `.repeat(100) },
  });

async function expectUnavailable(res: Response, fragment: RegExp, path: string): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, 503, text);
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'store_unavailable');
  assert.match(body.error.message, fragment);
  assert.ok(body.error.message.includes(path), `the answer names ${path}: ${body.error.message}`);
  assertClean(text);
}

/**
 * Starts `coord serve` on `stateDir` expecting a refusal; resolves with its exit code and stderr once its pipes
 * have closed (its 'exit' can come before the last stderr bytes). A daemon that starts instead is stopped.
 */
function refusedStart(stateDir: string): Promise<{ code: number | null; stderr: string }> {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, 'serve', '--port', '0', '--state', stateDir, '--json'], {
    cwd: ROOT,
    env: childEnv({ COORD_LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    if (stdout.includes('\n')) child.kill('SIGTERM');
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) =>
    child.once('close', (code) =>
      stdout
        ? reject(new Error(`coord serve started on ${stateDir} instead of refusing: ${stdout}`))
        : resolve({ code, stderr }),
    ),
  );
}

/** Refused, exit non-zero, the file named with what to do, the file and its directory exactly as before. */
async function assertRefused(stateDir: string, fragment: RegExp): Promise<string> {
  const db = join(stateDir, 'coord.db');
  const before = { sha: sha256(db), sidecars: sidecars(db) };
  const { code, stderr } = await refusedStart(stateDir);
  figures.faults += 1;
  assert.ok(code !== null && code !== 0, `exit code ${code}: ${stderr}`);
  assert.match(stderr, /^coord: could not start: /m);
  assert.match(stderr, fragment);
  assert.ok(stderr.includes(db), `the refusal names ${db}: ${stderr}`);
  assertClean(stderr);
  assert.equal(sha256(db), before.sha, 'the refused file is byte-for-byte unchanged');
  assert.deepEqual(sidecars(db), before.sidecars, 'no -wal/-shm left behind');
  figures.refusedStarts += 1;
  return stderr;
}

/** The same refusal from openDatabase in process: an UntrustedDatabase naming the file, the file unchanged. */
function assertRefusedInProcess(stateDir: string, fragment: RegExp): void {
  const db = join(stateDir, 'coord.db');
  const before = { sha: sha256(db), sidecars: sidecars(db) };
  figures.faults += 1;
  assert.throws(
    () => openDatabase(db).close(),
    (e) => e instanceof UntrustedDatabase && fragment.test(e.message) && e.message.includes(db),
  );
  assert.equal(sha256(db), before.sha, 'the refused file is byte-for-byte unchanged');
  assert.deepEqual(sidecars(db), before.sidecars, 'no -wal/-shm left behind');
  figures.refusedStarts += 1;
}

/** A real coord.db with `n` tasks (a few claimed), written by the store and closed cleanly. */
async function realDatabase(n: number): Promise<string> {
  const path = join(tempDir('coord-real-db-'), 'coord.db');
  const h = await harness(async (clock) => new SqliteStore({ path, clock }));
  for (let i = 0; i < n; i++) {
    const { task } = await h.call(op.createTask, { title: `task ${i}`, body: 'x'.repeat(300), agent: 'alice' });
    if (i % 10 === 0) await h.call(op.claimTask, { task_id: task.id, agent: 'bob' });
  }
  await h.store.close();
  return path;
}

function stateWith(file: string | ((db: string) => void)): string {
  const state = tempDir('coord-fault-state-');
  const db = join(state, 'coord.db');
  if (typeof file === 'string') copyFileSync(file, db);
  else file(db);
  // As the daemon leaves it: private to its owner (else it would chmod the file before opening it).
  chmodSync(db, 0o600);
  return state;
}

const notMountable = cannotMount();
if (notMountable) console.log(`# SKIPPED the mount-based cases (disk full, read-only): ${notMountable}`);

// The cases share nothing (each its own mount or state directory): run them side by side to stay well under 60 s.
describe('storage faults', { concurrency: true }, () => {
  after(printFigures);

  describe('a full disk while serving', { skip: notMountable ?? false }, () => {
    let disk: SmallDisk | undefined;
    after(() => disk?.unmount());

    test('writes answer 503 store_unavailable naming coord.db, reads and the daemon keep answering, and once space is freed the same writes succeed with nothing lost or doubled', async () => {
      disk = smallDisk(3 << 20);
      const state = stateDirIn(disk.dir);
      const db = join(state, 'coord.db');
      const d = await spawnDaemon({ stateDir: state });
      try {
        const acked: string[] = [];
        for (let i = 0; i < 20; i++) {
          const res = await post(d, `before ${i}`, `before-${i}`);
          assert.equal(res.status, 201);
          acked.push(`before-${i}`);
        }
        const held = (await (await post(d, 'to claim', 'to-claim')).json()) as { task: { id: string } };
        acked.push('to-claim');
        // A claim whose lease lapses while the disk is full: requeueing it is a write the disk refuses.
        const lapsing = (await (await post(d, 'lapsing', 'lapsing')).json()) as { task: { id: string } };
        acked.push('lapsing');
        const lease = await d.fetch(`/v1/tasks/${lapsing.task.id}/claim`, {
          method: 'POST',
          json: { agent: 'carol', lease_s: 1 },
        });
        const { lease_until } = (await lease.json()) as { lease_until: string };

        disk.fill();
        // Keep writing until the disk refuses three in a row: the -wal may still have room for a few frames.
        const refused: string[] = [];
        let inARow = 0;
        for (let i = 0; i < 300 && inARow < 3; i++) {
          const res = await post(d, `during ${i}`, `during-${i}`);
          if (res.status === 201) {
            acked.push(`during-${i}`);
            inARow = 0;
            await res.body?.cancel();
          } else {
            await expectUnavailable(
              res,
              /^disk full: could not write .* free space on that disk; nothing was written, retry$/,
              db,
            );
            refused.push(`during-${i}`);
            inARow += 1;
          }
        }
        assert.equal(inARow, 3, 'the full disk refused writes');
        figures.faults += 1;

        // Other writes are refused the same way; reads, health and the daemon itself keep answering.
        const claim = await d.fetch(`/v1/tasks/${held.task.id}/claim`, { method: 'POST', json: { agent: 'bob' } });
        await expectUnavailable(claim, /^disk full/, db);
        const lock = await d.fetch('/v1/locks', { method: 'POST', json: { agent: 'bob', resources: ['src/a.ts'] } });
        await expectUnavailable(lock, /^disk full/, db);
        // Reads answer even with a lapsed lease due to move: they show the last committed state until a write can.
        await waitFor(() => Date.now() > Date.parse(lease_until) + 20, 'the lease to lapse');
        for (const path of [
          '/v1/health',
          '/v1/inbox?agent=bob',
          '/v1/inbox?agent=carol&format=text',
          '/v1/tasks?limit=500',
          `/v1/tasks/${held.task.id}`,
          `/v1/tasks/${lapsing.task.id}`,
          '/v1/agents',
          '/v1/locks',
        ]) {
          const res = await d.fetch(path);
          assert.equal(res.status, 200, `${path} answers on a full disk`);
          await res.body?.cancel();
        }
        const cliEnv = { COORD_AGENT: 'cli', COORD_BOARD: 'default' };
        const cli = await runCli(['post', 'via the cli', '--state', state], cliEnv);
        assert.equal(cli.code, 3, cli.stderr);
        assert.match(cli.stderr, /^coord: store_unavailable: disk full: could not write /);
        assert.ok(cli.stderr.includes(db), cli.stderr);
        assertClean(cli.stderr + cli.stdout);
        const ls = await runCli(['ls', '--state', state], cliEnv);
        assert.equal(ls.code, 0, ls.stderr);
        assert.match(ls.stdout, /before 0/);

        disk.free();
        // The refused writes were not half-applied: retried with the same key, each is created now, once.
        for (const key of refused) {
          const res = await post(d, key.replace('-', ' '), key);
          assert.equal(res.status, 201, `${key} is created on retry, not found half-written`);
          const body = (await res.json()) as { created: boolean };
          assert.equal(body.created, true);
        }
        const claimed = await d.fetch(`/v1/tasks/${held.task.id}/claim`, { method: 'POST', json: { agent: 'bob' } });
        assert.equal(claimed.status, 200);
        await claimed.body?.cancel();
        const requeued = (await (await d.fetch(`/v1/tasks/${lapsing.task.id}`)).json()) as {
          task: { state: string; attempts: number };
        };
        assert.deepEqual(
          [requeued.task.state, requeued.task.attempts],
          ['queued', 1],
          'the lapsed claim moved once writable',
        );
        const cliAgain = await runCli(['post', 'via the cli', '--state', state], cliEnv);
        assert.equal(cliAgain.code, 0, cliAgain.stderr);

        const list = async (daemon: SpawnedDaemon) => {
          const res = await daemon.fetch('/v1/tasks?limit=500');
          const { tasks } = (await res.json()) as { tasks: { title: string; idempotency_key: string | null }[] };
          return tasks;
        };
        const expectKeys = [...acked, ...refused].sort();
        const check = (tasks: { title: string; idempotency_key: string | null }[]) => {
          const keys = tasks.flatMap((t) => (t.idempotency_key ? [t.idempotency_key] : [])).sort();
          assert.deepEqual(keys, expectKeys, 'every acknowledged write is there, and every retried one, exactly once');
          assert.equal(tasks.filter((t) => t.title === 'via the cli').length, 1);
        };
        check(await list(d));
        await d.stop();
        // The fault left a file coord trusts: a new daemon passes quick_check and sees the same board.
        const again = await spawnDaemon({ stateDir: state });
        try {
          check(await list(again));
        } finally {
          await again.stop();
        }
        console.log(
          `# disk full: ${acked.length} writes acknowledged (${acked.filter((k) => k.startsWith('during')).length} while full), ${refused.length} refused then retried, all found exactly once after a restart`,
        );
        assert.match(
          d.stderr(),
          /"code":"SQLITE_FULL".*"msg":"store unavailable"/,
          'the daemon log has the SQLite error',
        );
      } finally {
        await d.stop();
      }
    });
  });

  describe('a read-only coord.db', { skip: notMountable ?? false }, () => {
    let disk: SmallDisk | undefined;
    after(() => disk?.unmount());

    test('a state directory remounted read-only is refused at start with a message naming it, and coord.db is unchanged', async () => {
      disk = smallDisk(2 << 20);
      const state = stateDirIn(disk.dir);
      const d = await spawnDaemon({ stateDir: state });
      assert.equal((await post(d, 'kept', 'kept')).status, 201);
      await d.stop();
      const db = join(state, 'coord.db');
      const before = sha256(db);
      disk.readOnly();
      try {
        const { code, stderr } = await refusedStart(state);
        figures.faults += 1;
        assert.ok(code !== null && code !== 0, `exit code ${code}: ${stderr}`);
        assert.match(
          stderr,
          /^coord: could not start: .*read-only file system — remount it read-write, or pass another --state/im,
        );
        assert.ok(stderr.includes(state), stderr);
        assertClean(stderr);
        assert.equal(sha256(db), before);
        figures.refusedStarts += 1;
      } finally {
        disk.readWrite();
      }
      const back = await spawnDaemon({ stateDir: state });
      try {
        const tasks = (await (await back.fetch('/v1/tasks')).json()) as { tasks: { title: string }[] };
        assert.deepEqual(
          tasks.tasks.map((t) => t.title),
          ['kept'],
        );
      } finally {
        await back.stop();
      }
    });

    test('a coord.db bind-mounted read-only in a writable directory is refused at start, naming the file and what to do, with no -wal/-shm left', async () => {
      const state = stateWith(await realDatabase(5));
      const unbind = bindReadOnly(join(state, 'coord.db'));
      try {
        await assertRefused(state, /is read-only .* make it writable/);
      } finally {
        unbind();
      }
    });

    test('a running store whose writes SQLite refuses as read-only answers store_unavailable naming the file, keeps reading, and writes the same task once writable', async () => {
      // A file system cannot be remounted read-only under a daemon that has coord.db open for writing (the
      // kernel answers EBUSY), so the refusal comes from SQLite itself: query_only gives the same SQLITE_READONLY.
      const path = join(tempDir('coord-ro-store-'), 'coord.db');
      const h = await harness(async (clock) => new SqliteStore({ path, clock }));
      const store = h.store as SqliteStore;
      await h.call(op.createTask, { title: 'before', agent: 'alice' });
      store.db.pragma('query_only = ON');
      const failed = await h.fail(op.createTask, { title: 'during', agent: 'alice', idempotency_key: 'k' });
      figures.faults += 1;
      assert.equal(failed.code, 'store_unavailable');
      assert.match(failed.message, /^read-only: could not write .* make it writable; nothing was written, retry$/);
      assert.ok(failed.message.includes(path));
      assertClean(failed.message);
      assert.equal((await h.call(op.listTasks, {})).tasks.length, 1);
      store.db.pragma('query_only = OFF');
      const retried = await h.call(op.createTask, { title: 'during', agent: 'alice', idempotency_key: 'k' });
      assert.equal(retried.created, true);
      await h.store.close();
    });
  });

  test('over MCP, a tool whose write the store refuses is isError text that starts with store_unavailable and names the file; inbox still answers', async () => {
    const h = await mcpHarness();
    const store = h.store as SqliteStore;
    const agent = await h.agent({ agent: 'claude' });
    store.db.pragma('query_only = ON');
    const posted = await agent.call('post_task', { title: 'refused' });
    figures.faults += 1;
    assert.equal(posted.isError, true);
    assert.match(
      posted.text,
      /^store_unavailable: read-only: could not write .*coord\.db .*nothing was written, retry$/,
    );
    assertClean(posted.text);
    const inbox = await agent.call('inbox');
    assert.equal(inbox.isError, false, inbox.text);
    store.db.pragma('query_only = OFF');
    assert.equal((await agent.call('post_task', { title: 'refused' })).isError, false);
    await agent.close();
    await h.store.close();
  });

  const noShutdown = cannotShutDown();
  if (noShutdown) console.log(`# SKIPPED the I/O error case: ${noShutdown}`);

  describe('an I/O error under a running daemon', { skip: noShutdown ?? false }, () => {
    let disk: DyingDisk | undefined;
    after(() => disk?.unmount());

    test('once its disk dies (ext4 shut down) writes answer 503 store_unavailable naming the file, the daemon stays up, and every acknowledged write is there when the disk is back', async () => {
      disk = dyingDisk(16 << 20);
      const state = stateDirIn(disk.dir);
      const db = join(state, 'coord.db');
      const d = await spawnDaemon({ stateDir: state });
      const acked: string[] = [];
      try {
        for (let i = 0; i < 10; i++) {
          const res = await post(d, `before ${i}`, `before-${i}`);
          assert.equal(res.status, 201);
          acked.push(`before-${i}`);
        }
        disk.shutDown();
        figures.faults += 1;
        await expectUnavailable(await post(d, 'during', 'during'), /^I\/O error on .* nothing was written, retry$/, db);
        // SQLite may still answer a read from its cache, or find the file unreadable: either way a clear answer.
        for (const path of ['/v1/tasks?limit=500', '/v1/inbox?agent=bob', '/v1/locks']) {
          const res = await d.fetch(path);
          if (res.status === 200) await res.body?.cancel();
          else
            await expectUnavailable(
              res,
              /^(I\/O error on|SQLite finds .* corrupt, or could not read it — stop coord and start it again)/,
              db,
            );
        }
        await expectUnavailable(await post(d, 'during', 'during'), /^(I\/O error on|SQLite finds)/, db);
        const health = await d.fetch('/v1/health');
        assert.equal(health.status, 200, 'the daemon stays up');
        await health.body?.cancel();
      } finally {
        await d.kill9();
      }
      disk.remount();
      const back = await spawnDaemon({ stateDir: state });
      try {
        const { tasks } = (await (await back.fetch('/v1/tasks?limit=500')).json()) as {
          tasks: { idempotency_key: string | null }[];
        };
        assert.deepEqual(
          tasks.map((t) => t.idempotency_key).sort(),
          acked.sort(),
          'acknowledged before the I/O error: all there, and nothing more',
        );
      } finally {
        await back.stop();
      }
      console.log(
        `# I/O error: ${acked.length} writes acknowledged before the disk died, all found after it came back`,
      );
    });
  });

  describe('an untrusted coord.db at start', () => {
    test('a garbage header, random bytes over an interior page, a truncated file, a text file, a foreign SQLite database and a newer one are each refused, named with what to do, and left unchanged (three through a real coord serve, exit non-zero)', async () => {
      const real = await realDatabase(300);
      const interior = (() => {
        const db = new Database(real, { readonly: true });
        const row = db
          .prepare("SELECT pageno FROM dbstat WHERE name = 'tasks' AND pagetype = 'internal' LIMIT 1")
          .get() as { pageno: number } | undefined;
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.close();
        assert.ok(row, 'the real database has an interior page in tasks');
        return { offset: (row.pageno - 1) * pageSize, pageSize };
      })();
      const overwrite = (offset: number, bytes: Buffer) => (db: string) => {
        copyFileSync(real, db);
        const all = readFileSync(db);
        bytes.copy(all, offset);
        writeFileSync(db, all);
      };
      // [what, state directory, the refusal, through a real `coord serve` (else openDatabase in process)]
      const cases: [string, string, RegExp, boolean][] = [
        ['garbage header', stateWith(overwrite(0, random(1)(100))), /is not a SQLite database .* move it aside/, true],
        [
          'random bytes over an interior page of tasks',
          stateWith(overwrite(interior.offset, random(2)(interior.pageSize))),
          /is corrupt \(.+\) — coord will not touch it; move it aside and restart to begin a new board, or restore a backup/,
          true,
        ],
        [
          'truncated to half',
          stateWith((db) => {
            copyFileSync(real, db);
            truncateSync(db, Math.floor(readFileSync(db).length / 2) + 123);
          }),
          /is corrupt .* restore a backup/,
          false,
        ],
        ['a text file', stateWith((db) => writeFileSync(db, '{"tasks": []}\n')), /is not a SQLite database/, false],
        [
          "another program's SQLite database",
          stateWith((db) => {
            const other = new Database(db);
            other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
            other.close();
          }),
          /is a SQLite database but not coord's \(user_version 0, tables: notes\)/,
          false,
        ],
        [
          'written by a newer coord',
          stateWith((db) => {
            copyFileSync(real, db);
            const newer = new Database(db);
            newer.pragma(`user_version = ${LAST_VERSION + 7}`);
            newer.close();
          }),
          new RegExp(
            `was written by a newer coord \\(schema version ${LAST_VERSION + 7}; this coord knows up to ${LAST_VERSION}\\)`,
          ),
          true,
        ],
      ];
      await Promise.all(
        cases.map(async ([what, state, fragment, serve]) => {
          try {
            if (serve) await assertRefused(state, fragment);
            else assertRefusedInProcess(state, fragment);
          } catch (e) {
            throw new Error(`${what}: ${(e as Error).message}`);
          }
        }),
      );
    });

    test('every b-tree page of a real coord.db, overwritten in turn with random bytes, is refused at open and left unchanged', async () => {
      const real = await realDatabase(120);
      const db = new Database(real, { readonly: true });
      const pages = db
        .prepare("SELECT pageno, name FROM dbstat WHERE pagetype IN ('internal', 'leaf', 'overflow')")
        .all() as {
        pageno: number;
        name: string;
      }[];
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.close();
      const pristine = readFileSync(real);
      const dir = tempDir('coord-pages-');
      const path = join(dir, 'coord.db');
      for (const { pageno, name } of pages) {
        const bytes = Buffer.from(pristine);
        random(1000 + pageno)(pageSize).copy(bytes, (pageno - 1) * pageSize);
        writeFileSync(path, bytes);
        const before = sha256(path);
        assert.throws(
          () => openDatabase(path).close(),
          (e) =>
            e instanceof UntrustedDatabase && ['corrupt', 'not_sqlite'].includes(e.reason) && e.message.includes(path),
          `page ${pageno} (${name}) overwritten`,
        );
        assert.equal(sha256(path), before, `page ${pageno} (${name}): the refused file is unchanged`);
        assert.deepEqual(sidecars(path), []);
        figures.pagesCorrupted += 1;
        figures.faults += 1;
      }
      assert.ok(pages.length >= 20, `${pages.length} pages`);
    });

    test('a zero-length coord.db holds nothing to lose, so coord starts a new board on it', async () => {
      const path = join(
        stateWith((db) => writeFileSync(db, '')),
        'coord.db',
      );
      figures.faults += 1;
      const h = await harness(async (clock) => new SqliteStore({ path, clock }));
      await h.call(op.createTask, { title: 'first', agent: 'alice' });
      assert.equal((await h.call(op.listTasks, {})).tasks.length, 1);
      await h.store.close();
    });

    test('a coord.db whose last commits are still in its -wal after kill -9 is trusted at start and keeps them', async () => {
      const state = tempDir('coord-wal-state-');
      const d = await spawnDaemon({ stateDir: state });
      for (let i = 0; i < 10; i++) assert.equal((await post(d, `t${i}`, `k${i}`)).status, 201);
      await d.kill9();
      assert.ok(sidecars(join(state, 'coord.db')).includes('-wal'), 'the writes are still in the -wal');
      const again = await spawnDaemon({ stateDir: state });
      try {
        const { tasks } = (await (await again.fetch('/v1/tasks')).json()) as { tasks: unknown[] };
        assert.equal(tasks.length, 10);
      } finally {
        await again.stop();
      }
    });
  });

  describe('a lock held too long by another process', () => {
    test('a write waits out the 5 s busy timeout, answers 503 saying coord.db is locked by another process, reads still answer, and the write succeeds once the lock is let go', async () => {
      const d = await spawnDaemon();
      let holder: ChildProcess | undefined;
      try {
        assert.equal((await post(d, 'before', 'before')).status, 201);
        const db = join(d.stateDir, 'coord.db');
        holder = spawn(process.execPath, [join(FIXTURES, 'fault-hold-lock.mjs'), db], {
          env: childEnv(),
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        await new Promise<void>((resolve, reject) => {
          createInterface({ input: holder!.stdout! }).once('line', () => resolve());
          holder!.once('exit', (code) => reject(new Error(`the lock holder exited ${code}`)));
        });
        const inbox = await d.fetch('/v1/inbox?agent=bob');
        assert.equal(inbox.status, 200, 'reads do not need the write lock');
        await inbox.body?.cancel();
        await expectUnavailable(
          await post(d, 'during', 'during'),
          /is locked by another process \(waited 5 s\) — close whatever holds it open .*nothing was written, retry$/,
          db,
        );
        figures.faults += 1;
        holder.stdin!.end();
        await new Promise((resolve) => holder!.once('exit', resolve));
        const retried = await post(d, 'during', 'during');
        assert.equal(retried.status, 201);
        assert.equal(((await retried.json()) as { created: boolean }).created, true);
      } finally {
        if (holder && holder.exitCode === null) holder.kill('SIGKILL');
        await d.stop();
      }
    });
  });
});
