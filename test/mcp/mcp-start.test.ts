/**
 * `coord mcp` as an agent starts it, next to a running daemon: a command line of known flags takes the fast
 * path (cli/mcp-main.ts), which answers initialize and tools/list like the relay always did and loads only the
 * relay — no commander, no zod, no route table or operations, no fetch (undici). Anything else on the command
 * line goes to commander, so --help and usage errors read as on every command.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { plainMcpFlags } from '../../src/cli/mcp-main.js';
import { tempDir } from '../support/ctx.js';
import { COORD, childEnv, ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { SPEC_TOOLS } from './spec-tools.js';

const RECORDER = join(ROOT, 'test/support/load-recorder.mjs');

interface Loads {
  modules: string[];
  builtins: string[];
  cjs: string[];
}

/** Spawns `coord mcp <args>` under the load recorder, sends `lines`, and collects every answer until stdin closes. */
async function runMcp(
  args: string[],
  lines: object[],
  waitForIds: number[],
): Promise<{ answers: any[]; loads: Loads }> {
  const loadsFile = join(tempDir('coord-mcp-loads-'), 'loads.json');
  const [cmd, ...base] = COORD as [string, ...string[]];
  const child = spawn(cmd, [...base.slice(0, -1), '--import', RECORDER, base.at(-1) ?? '', 'mcp', ...args], {
    cwd: ROOT,
    env: childEnv({ COORD_LOG_LEVEL: 'warn', COORD_BOARD: 'mcp-start', COORD_TEST_LOADS: loadsFile }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const answers: any[] = [];
  let out = '';
  const done = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      let nl = out.indexOf('\n');
      while (nl >= 0) {
        answers.push(JSON.parse(out.slice(0, nl)));
        out = out.slice(nl + 1);
        nl = out.indexOf('\n');
      }
      if (waitForIds.every((id) => answers.some((a) => a.id === id))) resolve();
    });
    void exited.then((code) => reject(new Error(`coord mcp exited ${code} before answering: ${err}`)));
  });
  for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  await done;
  child.stdin.end();
  assert.equal(await exited, 0, err);
  return { answers, loads: JSON.parse(readFileSync(loadsFile, 'utf8')) as Loads };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'start-test', version: '1' } },
};

describe('coord mcp start-up', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d?.stop();
  });

  test('with known flags it answers initialize and tools/list, and loads neither commander, zod, the routes nor fetch', async () => {
    const { answers, loads } = await runMcp(
      ['--state', d.stateDir, '--agent', 'starter', '--board=mcp-start', '--json'],
      [
        INITIALIZE,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      [1, 2],
    );
    const init = answers.find((a) => a.id === 1);
    assert.equal(init.result.serverInfo.name, 'coord');
    assert.equal(init.result.protocolVersion, '2025-06-18');
    const tools = answers.find((a) => a.id === 2).result.tools.map((t: { name: string }) => t.name);
    assert.deepEqual([...tools].sort(), [...SPEC_TOOLS].sort());

    // Named by source: the CLI runs from dist/ when the build is current (test/support/daemon.ts).
    // The build's one-file relay bundle (scripts/bundle-hooks.mjs) is required, so what it loads is CommonJS.
    const modules = [...loads.modules, ...loads.cjs].map((u) =>
      u
        .replace(`file://${ROOT}`, '')
        .replace(ROOT, '')
        .replace(/^dist\/(.*)\.js$/, 'src/$1.ts'),
    );
    assert.ok(
      modules.includes('src/cli/mcp-main.ts') || modules.includes('dist/mcp-bundle/main.cjs'),
      'the fast path ran',
    );
    // src/api/paths.ts is the contract's URLs as plain strings, made for light clients: it imports nothing.
    const heavy = modules.filter((m) =>
      /node_modules\/(commander|zod|@modelcontextprotocol|fastify|pino)\/|^src\/(server|store)\/|^src\/api\/(?!paths\.ts$)|^src\/core\/(schemas|operations?|ops\/)/.test(
        m,
      ),
    );
    assert.deepEqual(heavy, [], 'modules coord mcp loaded that it does not use');
    assert.ok(!loads.builtins.some((b) => b.includes('undici')), 'fetch (undici) was loaded');
  });

  test('the recorder sees what a command does load: `coord ls` loads commander and zod', async () => {
    const loadsFile = join(tempDir('coord-ls-loads-'), 'loads.json');
    const [cmd, ...base] = COORD as [string, ...string[]];
    const r = spawnSync(
      cmd,
      [...base.slice(0, -1), '--import', RECORDER, base.at(-1) ?? '', 'ls', '--state', d.stateDir],
      {
        cwd: ROOT,
        env: childEnv({ COORD_TEST_LOADS: loadsFile }),
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const loads = JSON.parse(readFileSync(loadsFile, 'utf8')) as Loads;
    assert.ok(loads.modules.some((m) => m.includes('/node_modules/commander/')));
    assert.ok(loads.modules.some((m) => m.includes('/node_modules/zod/')));
  });

  test('--help and an unknown flag go to commander: usage on stdout and exit 0, an error and exit 1', () => {
    const [cmd, ...base] = COORD as [string, ...string[]];
    const help = spawnSync(cmd, [...base, 'mcp', '--help'], { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: coord mcp \[options\]/);
    for (const flag of ['--agent <name>', '--client <kind>', '--board <name>', '--state <dir>', '--json'])
      assert.ok(help.stdout.includes(flag), flag);
    const bad = spawnSync(cmd, [...base, 'mcp', '--bogus'], { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /unknown option '--bogus'/);
    assert.equal(bad.stdout, '', 'stdout carries protocol only');
  });

  test('the fast path takes only known flags with their values; anything else is left to commander', () => {
    assert.deepEqual(plainMcpFlags(['--agent', 'a', '--board=b', '--state', '/s', '--client', 'claude', '--json']), {
      agent: 'a',
      board: 'b',
      state: '/s',
      client: 'claude',
      json: true,
    });
    assert.deepEqual(plainMcpFlags([]), {});
    for (const args of [
      ['--help'],
      ['-h'],
      ['--bogus'],
      ['--agent'],
      ['--agent', '--board', 'x'],
      ['extra'],
      ['--json=1'],
    ])
      assert.equal(plainMcpFlags(args), null, args.join(' '));
  });
});
