import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readDaemonInfo, writeDaemonInfo } from '../../src/state-dir/daemon-info.js';
import { makeStateDir } from './helpers.js';

test('daemon.json is written with mode 0600, read back, and leaves no temp file', () => {
  const state = makeStateDir();
  try {
    const info = { pid: 4242, url: 'http://127.0.0.1:7777', version: '0.1.0' };
    writeDaemonInfo(state.dir, info);
    writeDaemonInfo(state.dir, { ...info, pid: 4243 });
    assert.deepEqual(readDaemonInfo(state.dir), { ...info, pid: 4243 });
    assert.equal(statSync(join(state.dir, 'daemon.json')).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(state.dir), ['daemon.json']);
  } finally {
    state.cleanup();
  }
});

test('a missing, half-written or malformed daemon.json reads as null', () => {
  const state = makeStateDir();
  try {
    assert.equal(readDaemonInfo(state.dir), null);
    const path = join(state.dir, 'daemon.json');
    for (const body of [
      '{"pid": 12, "url": "http://127',
      '[]',
      '{"pid":-1,"url":"u","version":"v"}',
      '{"pid":1,"url":2,"version":"v"}',
    ]) {
      writeFileSync(path, body);
      assert.equal(readDaemonInfo(state.dir), null, body);
    }
  } finally {
    state.cleanup();
  }
});
