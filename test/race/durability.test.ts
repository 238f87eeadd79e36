import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { spawnDaemon } from '../support/daemon.js';

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
});
