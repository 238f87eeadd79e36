import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { tryLockFile, unlockFile } from '../../src/state-dir/index.js';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, spawnDaemon } from '../support/daemon.js';

// kill -9 at any instant: test/reliability/crash-durability.test.ts (every kind of write, both stores).
describe('durability', () => {
  test('SIGTERM shuts the daemon down cleanly: exit 0, daemon.json and daemon.lock removed', async () => {
    const stateDir = tempDir('coord-term-');
    const d = await spawnDaemon({ stateDir });
    assert.ok(existsSync(join(stateDir, 'daemon.json')));
    assert.equal(await d.stop(), 0);
    assert.ok(!existsSync(join(stateDir, 'daemon.json')));
    assert.ok(!existsSync(join(stateDir, 'daemon.lock')));
    assert.ok(existsSync(join(stateDir, 'coord.db')), 'the board survives');
  });

  test('a supervisor that sends SIGTERM the instant it reads the ready line gets exit 0 and a released lock, every time', async () => {
    // The ready line promises the signal handlers are in place: printed before them, a SIGTERM landing in
    // between killed the daemon by the default disposition (no clean close, lock and daemon.json left).
    const tries = 12;
    const outcomes = [];
    for (let round = 0; round < tries / 4; round++)
      outcomes.push(...(await Promise.all(Array.from({ length: 4 }, () => termOnReady()))));
    assert.deepEqual(
      outcomes.filter((o) => o !== 'clean'),
      [],
      `${outcomes.filter((o) => o !== 'clean').length} of ${tries} starts did not stop cleanly`,
    );
  });
});

/** Starts a daemon, SIGTERMs it on its first stdout byte, and says how it ended. */
async function termOnReady(): Promise<string> {
  const stateDir = tempDir('coord-term-ready-');
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base, 'serve', '--port', '0', '--state', stateDir, '--json'], {
    cwd: ROOT,
    env: childEnv({ COORD_LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  child.stdout.once('data', () => child.kill('SIGTERM'));
  createInterface({ input: child.stdout }).on('line', () => {});
  const { code, signal } = await ended;
  if (signal || code !== 0) return `exit ${code} signal ${signal}`;
  const lock = tryLockFile(join(stateDir, 'daemon.lock'));
  if (!lock) return 'daemon.lock still held';
  unlockFile(lock.fd);
  if (existsSync(join(stateDir, 'daemon.json'))) return 'daemon.json left behind';
  return 'clean';
}
