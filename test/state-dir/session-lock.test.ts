import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findDeadSessions, holdSessionLock, isSessionAlive } from '../../src/state-dir/session-lock.js';
import { watchSessions } from '../../src/state-dir/session-watch.js';
import { fingerprint, makeStateDir, startWorker, waitFor } from './helpers.js';

const T = { timeout: 30_000 };

async function startSession(stateDir: string) {
  const worker = startWorker('hold-session', stateDir);
  const held = await worker.next();
  assert.equal(held.event, 'held');
  return { worker, id: held.sessionId as string };
}

/** Poll findDeadSessions, collecting every id it reports, until `id` shows up. */
async function reapUntil(stateDir: string, id: string, timeoutMs: number) {
  const seen: string[] = [];
  await waitFor(
    () => {
      seen.push(...findDeadSessions(stateDir));
      return seen.includes(id);
    },
    `session ${id} to be reaped`,
    timeoutMs,
  );
  return seen;
}

test('a session held by a live process is alive and is never reaped, however old its file looks', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const { worker, id } = await startSession(state.dir);
  t.after(() => worker.kill9());
  const file = join(state.dir, 'sessions', `${id}.lock`);
  utimesSync(file, new Date(1000), new Date(1000));
  assert.equal(statSync(join(state.dir, 'sessions')).mode & 0o777, 0o700);
  assert.equal(isSessionAlive(state.dir, id), true);
  assert.deepEqual(findDeadSessions(state.dir), []);
  assert.ok(existsSync(file));
  assert.equal(isSessionAlive(state.dir, id), true);
});

test(
  'after kill -9 of its process a session is reported dead within a second and its file removed, and files not named <uuid>.lock are never touched',
  T,
  async (t) => {
    const state = makeStateDir();
    t.after(state.cleanup);
    const outside = makeStateDir();
    t.after(outside.cleanup);
    const { worker, id } = await startSession(state.dir);
    t.after(() => worker.kill9());
    const sessions = join(state.dir, 'sessions');
    writeFileSync(join(sessions, 'notes.txt'), 'keep me');
    writeFileSync(join(sessions, 'x.lock'), '');
    writeFileSync(join(sessions, `${randomUUID()}.lock.bak`), '');
    writeFileSync(join(sessions, `${randomUUID().toUpperCase()}.lock`), '');
    mkdirSync(join(sessions, `${randomUUID()}.lock`));
    writeFileSync(join(outside.dir, 'target'), 'not a session');
    symlinkSync(join(outside.dir, 'target'), join(sessions, `${randomUUID()}.lock`));
    const others = fingerprint(sessions, [`${id}.lock`]);
    const outsideBefore = fingerprint(outside.dir);

    await worker.kill9();
    const seen = await reapUntil(state.dir, id, 1000);
    assert.deepEqual(seen, [id]);
    assert.equal(existsSync(join(sessions, `${id}.lock`)), false);
    assert.equal(isSessionAlive(state.dir, id), false);
    assert.deepEqual(fingerprint(sessions), others);
    assert.deepEqual(fingerprint(outside.dir), outsideBefore);
    assert.deepEqual(findDeadSessions(state.dir), []);
  },
);

test('a session released cleanly is reaped like a crashed one, while other live sessions stay', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const a = await startSession(state.dir);
  const b = await startSession(state.dir);
  t.after(() => Promise.all([a.worker.kill9(), b.worker.kill9()]));
  a.worker.send('release');
  assert.equal((await a.worker.next()).event, 'released');
  assert.equal(isSessionAlive(state.dir, a.id), false);
  assert.deepEqual(await reapUntil(state.dir, a.id, 1000), [a.id]);
  assert.equal(isSessionAlive(state.dir, b.id), true);
  assert.deepEqual(readdirSync(join(state.dir, 'sessions')), [`${b.id}.lock`]);
});

test('a session lock held in this process is alive until released, then reaped', () => {
  const state = makeStateDir();
  try {
    const session = holdSessionLock(state.dir);
    assert.equal(isSessionAlive(state.dir, session.sessionId), true);
    assert.deepEqual(findDeadSessions(state.dir), []);
    session.release();
    session.release(); // idempotent
    assert.deepEqual(findDeadSessions(state.dir), [session.sessionId]);
  } finally {
    state.cleanup();
  }
});

test('isSessionAlive is false for ids that are not uuids and never looks outside the sessions directory', () => {
  const state = makeStateDir();
  try {
    writeFileSync(join(state.dir, 'daemon.lock'), '');
    for (const id of ['../server', 'x', '', `${randomUUID()}/..`]) {
      assert.equal(isSessionAlive(state.dir, id), false, id);
    }
    assert.equal(isSessionAlive(state.dir, randomUUID()), false);
    assert.deepEqual(findDeadSessions(join(state.dir, 'nowhere')), []);
  } finally {
    state.cleanup();
  }
});

test('watchSessions reports a killed session once, and stops when asked', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const dead: string[] = [];
  const stop = watchSessions(state.dir, (id) => dead.push(id), { intervalMs: 20 });
  t.after(stop);
  const { worker, id } = await startSession(state.dir);
  t.after(() => worker.kill9());
  assert.equal(isSessionAlive(state.dir, id), true);
  assert.equal(dead.length, 0);
  await worker.kill9();
  await waitFor(() => dead.includes(id), 'watcher to report the session');
  assert.equal(existsSync(join(state.dir, 'sessions', `${id}.lock`)), false);
  stop();
  assert.deepEqual(dead, [id]);
});

test('watchSessions does not keep the process alive', T, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const worker = startWorker('watch-sessions', state.dir);
  t.after(() => worker.kill9());
  assert.equal((await worker.next()).event, 'watching');
  assert.equal(await worker.exited, 0);
});
