/**
 * What the daemon does while it starts (docs/startup.md): it loads only what serving needs, and it starts with
 * TurboFan off and its young generation held (src/main.ts: less idle memory), setting both back to V8's
 * defaults once it listens — a daemon under load must optimize its hot code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { ROOT, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';

const readWhenThere = (path: string) => () => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

test('a listening daemon optimizes hot code with TurboFan again', async () => {
  const probe = join(tempDir('coord-probe-'), 'turbofan');
  const d = await spawnDaemon({
    env: { NODE_OPTIONS: `--import ${join(ROOT, 'test/support/turbofan-probe.mjs')}`, COORD_TEST_PROBE: probe },
  });
  try {
    process.kill(d.pid, 'SIGUSR2');
    assert.equal(await waitFor(readWhenThere(probe), 'the probe to answer'), 'turbofan');
  } finally {
    await d.stop();
  }
});

test('a serving daemon has loaded neither fastify’s schema compilers (ajv) nor the other CLI commands', async () => {
  const loads = join(tempDir('coord-serve-loads-'), 'loads.json');
  const d = await spawnDaemon({
    env: { NODE_OPTIONS: `--import ${join(ROOT, 'test/support/load-recorder.mjs')}`, COORD_TEST_LOADS: loads },
  });
  const res = await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'a', title: 'served' } });
  assert.equal(res.status, 201);
  assert.equal(await d.stop(), 0);
  const { modules, cjs } = JSON.parse(readFileSync(loads, 'utf8')) as { modules: string[]; cjs: string[] };
  const files = [...modules, ...cjs]
    .map((f) => f.replace(`file://${ROOT}`, '').replace(ROOT, ''))
    // The daemon runs from dist/ when the build is current (test/support/daemon.ts): name its files by source.
    .map((f) => f.replace(/^dist\/(.*)\.js$/, 'src/$1.ts'));
  assert.ok(files.includes('src/cli/commands/serve.ts'), 'the recorder saw the daemon load');
  assert.ok(
    files.some((f) => f.startsWith('node_modules/fastify/')),
    'the recorder sees CommonJS files',
  );
  const unused = files.filter((f) =>
    /node_modules\/(ajv|ajv-formats|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler)\/|node_modules\/fast-json-stringify\/index\.js|^src\/cli\/(program|commands\/(?!serve))/.test(
      f,
    ),
  );
  // fastify's prebuilt error serializer (fast-json-stringify/lib/serializer.js) is all of it that loads.
  assert.deepEqual(unused, []);
});
