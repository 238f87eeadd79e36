import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  acquireDaemonLock,
  cleanupStaleDaemonLock,
  findRunningDaemon,
  writeDaemonInfo,
} from '../../src/state-dir/daemon-lock.js';
import { fingerprint, makeStateDir, runWorker, startWorker, waitFor } from './helpers.js';

const T = { timeout: 30_000 };
const URL_A = 'http://127.0.0.1:45671';

test(
  "a second acquirer in another process is refused at once with the first's pid and url, and the first keeps the lock",
  T,
  async (t) => {
    const state = makeStateDir();
    t.after(state.cleanup);
    const a = startWorker('hold-daemon', state.dir, URL_A);
    t.after(() => a.kill9());
    assert.equal((await a.next()).event, 'held');

    const second = await runWorker('try-daemon', state.dir);
    assert.deepEqual(second, { ok: false, pid: a.pid, url: URL_A });

    const third = await runWorker('try-daemon', state.dir);
    assert.deepEqual(third, { ok: false, pid: a.pid, url: URL_A });
    assert.deepEqual(findRunningDaemon(state.dir), { pid: a.pid, url: URL_A });
    assert.equal(readFileSync(join(state.dir, 'daemon.lock'), 'utf8'), `${a.pid}\n`);
  },
);

test(
  'after kill -9 of the holder daemon.lock is left behind, and the next acquire removes it by try-lock without touching any other file',
  T,
  async (t) => {
    const state = makeStateDir();
    t.after(state.cleanup);
    writeFileSync(join(state.dir, 'token'), 'secret\n', { mode: 0o600 });
    writeFileSync(join(state.dir, 'coord.db'), 'db');
    mkdirSync(join(state.dir, 'sessions'));
    const a = startWorker('hold-daemon', state.dir, URL_A);
    t.after(() => a.kill9());
    assert.equal((await a.next()).event, 'held');
    await a.kill9();

    const lockPath = join(state.dir, 'daemon.lock');
    assert.ok(existsSync(lockPath), "the crashed holder's lock file is still there");
    // Make every other file look old and the lock file look brand new: only
    // the try-lock may decide, and nothing else may be written.
    const old = new Date('2001-01-01T00:00:00Z');
    for (const name of Object.keys(fingerprint(state.dir, ['daemon.lock']))) {
      utimesSync(join(state.dir, name), old, old);
    }
    utimesSync(lockPath, new Date(), new Date());
    const before = fingerprint(state.dir, ['daemon.lock']);

    const result = acquireDaemonLock(state.dir);
    assert.ok(result.ok);
    assert.equal(readFileSync(lockPath, 'utf8'), `${process.pid}\n`);
    assert.deepEqual(fingerprint(state.dir, ['daemon.lock']), before);
    result.lock.release();
    assert.deepEqual(fingerprint(state.dir), before);
  },
);

test('stale cleanup never removes a held lock, however old the file looks', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const a = startWorker('hold-daemon', state.dir, URL_A);
  t.after(() => a.kill9());
  assert.equal((await a.next()).event, 'held');
  const lockPath = join(state.dir, 'daemon.lock');
  utimesSync(lockPath, new Date(1000), new Date(1000));
  const ino = statSync(lockPath).ino;

  assert.deepEqual(await runWorker('cleanup-daemon', state.dir), { cleanup: 'held' });
  assert.equal(statSync(lockPath).ino, ino);
  assert.equal(cleanupStaleDaemonLock(state.dir), 'held');
  assert.equal(statSync(lockPath).ino, ino);

  const third = await runWorker('try-daemon', state.dir);
  assert.deepEqual(third, { ok: false, pid: a.pid, url: URL_A });
});

test('stale cleanup removes a lock file that nobody holds, and reports absent when there is none', () => {
  const state = makeStateDir();
  try {
    writeFileSync(join(state.dir, 'daemon.lock'), '12345\n');
    assert.equal(cleanupStaleDaemonLock(state.dir), 'removed');
    assert.equal(existsSync(join(state.dir, 'daemon.lock')), false);
    assert.equal(cleanupStaleDaemonLock(state.dir), 'absent');
    assert.equal(findRunningDaemon(state.dir), null);
    assert.equal(findRunningDaemon(join(state.dir, 'missing')), null);
  } finally {
    state.cleanup();
  }
});

test('release unlocks and removes daemon.lock, and an acquire after release succeeds', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const a = startWorker('hold-daemon', state.dir, URL_A);
  t.after(() => a.kill9());
  assert.equal((await a.next()).event, 'held');
  a.send('release');
  assert.equal((await a.next()).event, 'released');
  assert.equal(existsSync(join(state.dir, 'daemon.lock')), false);

  assert.deepEqual(await runWorker('try-daemon', state.dir), { ok: true });
  const mine = acquireDaemonLock(state.dir);
  assert.ok(mine.ok);
  mine.lock.release();
  mine.lock.release(); // idempotent
  assert.equal(existsSync(join(state.dir, 'daemon.lock')), false);
});

test(
  'a process spawned by the holder does not inherit the lock: it is free once the holder is killed',
  T,
  async (t) => {
    const state = makeStateDir();
    t.after(state.cleanup);
    const a = startWorker('hold-daemon', state.dir, URL_A, '--spawn-child');
    t.after(() => a.kill9());
    const held = await a.next();
    const childPid = held.childPid;
    assert.equal(typeof childPid, 'number');
    t.after(() => {
      try {
        process.kill(childPid as number, 'SIGKILL');
      } catch {}
    });
    await a.kill9();
    process.kill(childPid as number, 0); // the grandchild is still alive
    assert.deepEqual(await runWorker('try-daemon', state.dir), { ok: true });
  },
);

test("a daemon.json left by a crashed daemon is not taken for the running one's url", T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  writeDaemonInfo(state.dir, { pid: 999_999_999, url: 'http://127.0.0.1:1', version: 'old' });
  const a = startWorker('hold-daemon', state.dir, '-');
  t.after(() => a.kill9());
  assert.equal((await a.next()).event, 'held');
  assert.deepEqual(await runWorker('try-daemon', state.dir), {
    ok: false,
    pid: a.pid,
    url: null,
  });
  writeDaemonInfo(state.dir, { pid: a.pid, url: URL_A, version: 'test' });
  await waitFor(() => findRunningDaemon(state.dir)?.url === URL_A, 'new url');
});

test(
  'when several processes race for a state directory with a stale lock file, exactly one becomes the daemon',
  T,
  async (t) => {
    const state = makeStateDir();
    t.after(state.cleanup);
    const crashed = startWorker('hold-daemon', state.dir, '-');
    assert.equal((await crashed.next()).event, 'held');
    await crashed.kill9();

    const racers = Array.from({ length: 6 }, () => startWorker('hold-daemon', state.dir, URL_A));
    t.after(() => Promise.all(racers.map((r) => r.kill9())));
    const firsts = await Promise.all(racers.map((r) => r.next()));
    const winners = firsts.filter((f) => f.event === 'held');
    assert.equal(winners.length, 1);
    const winnerPid = winners[0]?.pid;
    for (const f of firsts) {
      if (f.event === 'conflict') assert.equal(f.pid, winnerPid);
    }
    assert.equal(readFileSync(join(state.dir, 'daemon.lock'), 'utf8'), `${winnerPid}\n`);
  },
);
