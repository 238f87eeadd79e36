/**
 * The token goes only to a live daemon (SPEC §10, issue 25 hole 6), told by the hooks without fs-ext where
 * /proc shows it (src/state-dir/daemon-live.ts): daemon.json names the daemon's pid and its process's start
 * time, written only once it holds its lock. A pid alone is not enough — after a crash it may be another
 * process's — and anything short of the proof is left to the try-lock of daemon.lock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { processStart, writeDaemonInfo } from '../../src/state-dir/daemon-info.js';
import { liveDaemonUrl } from '../../src/state-dir/daemon-live.js';
import { acquireDaemonLock } from '../../src/state-dir/daemon-lock.js';
import { makeStateDir } from './helpers.js';

const URL_A = 'http://127.0.0.1:45672';
const linux = process.platform === 'linux';

test('a daemon.json whose pid now names another process (its start time differs) and a free daemon lock give no URL', async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  // This test's process plays the stranger that got the crashed daemon's pid.
  writeDaemonInfo(state.dir, { pid: process.pid, url: URL_A, version: 'test', start: '1' });
  assert.equal(await liveDaemonUrl(state.dir), null);
  writeDaemonInfo(state.dir, { pid: process.pid, url: URL_A, version: 'test' });
  assert.equal(await liveDaemonUrl(state.dir), null, 'no start time: the try-lock decides, and the lock is free');
});

test('the process daemon.json names by pid and start time, alive, is the daemon — no try-lock needed', {
  skip: !linux,
}, async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const start = processStart(process.pid);
  assert.ok(start, '/proc/self/stat has a start time');
  assert.equal(processStart(process.pid), start, 'the same process, the same start time');
  // No lock is taken here: only the process proof can answer the URL.
  writeDaemonInfo(state.dir, { pid: process.pid, url: URL_A, version: 'test', start });
  assert.equal(await liveDaemonUrl(state.dir), URL_A);
});

test('where daemon.json has no start time, a held daemon lock still proves the daemon alive', async (t) => {
  const state = makeStateDir();
  t.after(state.cleanup);
  const got = acquireDaemonLock(state.dir);
  assert.ok(got.ok);
  try {
    writeDaemonInfo(state.dir, { pid: process.pid, url: URL_A, version: 'test' });
    assert.equal(await liveDaemonUrl(state.dir), URL_A);
  } finally {
    got.lock.release();
  }
});
