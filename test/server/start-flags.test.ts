/**
 * The daemon starts with TurboFan off and its young generation held (src/main.ts: less idle memory, issue 15),
 * and sets both back to V8's defaults once it listens: a daemon under load must optimize its hot code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { ROOT, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

test('a listening daemon optimizes hot code with TurboFan again', async () => {
  const probe = join(tempDir('coord-probe-'), 'turbofan');
  const d = await spawnDaemon({
    env: { NODE_OPTIONS: `--import ${join(ROOT, 'test/support/turbofan-probe.mjs')}`, COORD_TEST_PROBE: probe },
  });
  try {
    process.kill(d.pid, 'SIGUSR2');
    const state = await waitFor(() => {
      try {
        return readFileSync(probe, 'utf8');
      } catch {
        return '';
      }
    }, 'the probe to answer');
    assert.equal(state, 'turbofan');
  } finally {
    await d.stop();
  }
});
