/**
 * The package a user installs: `npm pack`, then `npm install -g` of the tarball into a temporary prefix,
 * then `coord` from an empty directory with an empty HOME — no checkout, no src/, no tsx behind it.
 *
 * The install runs with --ignore-scripts and then copies the checkout's own builds of the two native
 * addons (same pinned versions, same Node): compiling better-sqlite3 from source takes minutes and is
 * npm's and the addon's business, which `npm ci` already exercised. What this test checks is what coord
 * ships: the files, the built JavaScript, the bin, and a runtime dependency list that needs nothing else.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stopDaemon } from '../mcp/stdio-support.js';
import { tempDir } from '../support/ctx.js';
import { ROOT, runProcess } from '../support/daemon.js';

const NATIVE = ['better-sqlite3', 'fs-ext'];

describe('the installed package', () => {
  const work = tempDir('coord-pack-');
  const prefix = join(work, 'prefix');
  const home = join(work, 'home');
  const cwd = join(work, 'empty');
  let tarball = '';
  let files: string[] = [];
  const coord = join(prefix, 'bin', 'coord');
  const installed = join(prefix, 'lib', 'node_modules', 'coord');
  /** What a user's shell gives it: the prefix's bin and node, an empty HOME, nothing of this checkout. */
  const env = (): Record<string, string> => ({
    PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: home,
    COORD_LOG_LEVEL: 'warn',
  });

  before(() => {
    mkdirSync(home);
    mkdirSync(cwd);
    const npm = (args: string[], dir: string) =>
      execFileSync('npm', [...args, '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
    // Only the JSON: an npm that echoes the prepare script's banner to stdout puts it before the array.
    const out = npm(['pack', '--json', '--pack-destination', work], ROOT);
    const packed = JSON.parse(out.slice(out.search(/^\[/m))) as [{ filename: string; files: { path: string }[] }];
    tarball = join(work, packed[0].filename);
    files = packed[0].files.map((f) => f.path);
    npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--ignore-scripts', tarball], work);
    for (const name of NATIVE)
      cpSync(join(ROOT, 'node_modules', name, 'build'), join(installed, 'node_modules', name, 'build'), {
        recursive: true,
      });
  });

  after(async () => {
    // The daemon `coord mcp` started in the background must not outlive the test.
    await stopDaemon(join(work, 'state-mcp'));
  });

  test('the tarball holds the built JavaScript, the bin, the docs and the licence, and no source or tests', () => {
    assert.ok(files.includes('dist/main.js'));
    assert.ok(files.includes('bin/coord.js'));
    assert.ok(files.includes('bin/coord-hook.cjs'), 'the hooks entry setup writes');
    assert.ok(files.includes('dist/hook-bundle/main.cjs'), 'the one-file hook bundle');
    assert.ok(files.includes('dist/mcp-bundle/main.cjs'), 'the one-file `coord mcp` relay bundle');
    assert.ok(files.includes('LICENSE'));
    assert.ok(files.includes('README.md'));
    assert.ok(files.some((f) => f.startsWith('docs/')));
    assert.ok(
      files.some((f) => f.endsWith('.sql')),
      'the migrations ship with the build',
    );
    assert.deepEqual(
      files.filter((f) => /^(src|test|bench|scripts)\//.test(f) || f.endsWith('.ts')),
      [],
    );
  });

  test("the hooks' entry setup writes runs from the installed package: an edit outside every repository goes ahead, silently", () => {
    const input = {
      hook_event_name: 'PreToolUse',
      cwd,
      tool_name: 'Edit',
      tool_input: { file_path: join(cwd, 'x.ts') },
    };
    const r = spawnSync(
      process.execPath,
      [join(installed, 'bin', 'coord-hook.cjs'), 'hook', 'pre-edit', '--client', 'claude'],
      { cwd, env: env(), input: JSON.stringify(input), encoding: 'utf8' },
    );
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '', '']);
  });

  test('the install needs neither tsx nor typescript', () => {
    assert.equal(existsSync(join(installed, 'node_modules', 'tsx')), false);
    assert.equal(existsSync(join(installed, 'node_modules', 'typescript')), false);
  });

  test('coord --version prints the package version from an empty directory', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const res = await runProcess(coord, ['--version'], { cwd, env: env() });
    assert.equal(res.stderr, '');
    assert.equal(res.code, 0);
    assert.equal(res.stdout.trim(), version);
  });

  test('coord serve answers health, serves the dashboard and stops cleanly on SIGTERM', async () => {
    const state = join(work, 'state-serve');
    const child = spawn(coord, ['serve', '--port', '0', '--state', state, '--json'], {
      cwd,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      exited.then((code) => reject(new Error(`coord serve exited ${code}: ${err}`)));
    });
    const { url } = JSON.parse(line) as { url: string };
    const health = (await (await fetch(`${url}/v1/health`)).json()) as { ok?: boolean };
    assert.equal(health.ok, true);
    // The dashboard's files are not TypeScript: the build must have copied them into the package.
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, err);
  });

  test('coord mcp answers an MCP initialize, starting its own daemon', async () => {
    const transport = new StdioClientTransport({
      command: coord,
      args: ['mcp', '--state', join(work, 'state-mcp'), '--agent', 'packaged'],
      cwd,
      env: { ...env(), COORD_PORT: '0' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'coord');
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'claim_task'));
    } finally {
      await client.close();
    }
  });
});
