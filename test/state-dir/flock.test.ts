import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { tryLockFile, unlockFile } from '../../src/state-dir/flock.js';
import { makeStateDir } from './helpers.js';

const state = makeStateDir();
after(state.cleanup);
const openFds = (): number => readdirSync('/proc/self/fd').length;

test('a try-lock on a held file returns null at once, even from the same process, and leaks no fd', () => {
  const path = join(state.dir, 'a.lock');
  const first = tryLockFile(path);
  assert.ok(first);
  const before = openFds();
  assert.equal(tryLockFile(path), null);
  assert.equal(openFds(), before);
  unlockFile(first.fd);
});

test('unlockFile frees the lock for the next try-lock and leaves the file in place', () => {
  const path = join(state.dir, 'b.lock');
  const first = tryLockFile(path);
  assert.ok(first);
  unlockFile(first.fd);
  assert.ok(existsSync(path));
  const second = tryLockFile(path);
  assert.ok(second);
  unlockFile(second.fd);
});

test('tryLockFile creates a missing file with mode 0600', () => {
  const path = join(state.dir, 'c.lock');
  const lock = tryLockFile(path);
  assert.ok(lock);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  unlockFile(lock.fd);
});

test('tryLockFile with create: false returns null for a missing file and does not create it', () => {
  const path = join(state.dir, 'missing.lock');
  assert.equal(tryLockFile(path, { create: false }), null);
  assert.equal(existsSync(path), false);
});
