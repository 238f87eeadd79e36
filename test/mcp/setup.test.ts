/** `coord setup claude|cursor|codex`: the exact configuration, added idempotently and keeping what is there. */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mergeCodexToml, mergeCursorJson } from '../../src/cli/setup/client-config.js';
import { tempDir } from '../support/ctx.js';
import { ROOT, runProcess } from '../support/daemon.js';

const BIN = join(ROOT, 'bin/coord.js');
const launch = { command: '/usr/bin/node', args: ['/opt/coord/bin/coord.js', 'mcp'] };

/** The CLI from source, from any working directory (tsx resolved by absolute URL, not from the cwd). */
function coord(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const tsx = import.meta.resolve('tsx/esm');
  return runProcess(process.execPath, ['--import', tsx, join(ROOT, 'src/main.ts'), ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
  });
}

describe('coord setup', () => {
  test('merging into .cursor/mcp.json keeps other servers and keys, and leaves an existing coord entry alone', () => {
    const merged = mergeCursorJson('{"mcpServers":{"other":{"command":"x"}},"theme":"dark"}', launch);
    assert.ok(merged.changed);
    assert.deepEqual(JSON.parse(merged.text), {
      mcpServers: { other: { command: 'x' }, coord: launch },
      theme: 'dark',
    });
    assert.deepEqual(mergeCursorJson(merged.text, { command: 'other', args: [] }), {
      changed: false,
      present: true,
      reason: 'it already has a coord server (left as it is)',
    });
    const broken = mergeCursorJson('{ not json', launch);
    assert.equal(broken.changed, false);
    assert.equal(!broken.changed && broken.present, false);
    assert.deepEqual(JSON.parse((mergeCursorJson(null, launch) as { text: string }).text).mcpServers.coord, launch);
  });

  test('appending to ~/.codex/config.toml adds one [mcp_servers.coord] section and never a second', () => {
    const first = mergeCodexToml('model = "o3"\n[mcp_servers.other]\ncommand = "x"', launch);
    assert.ok(first.changed);
    assert.equal(
      first.text,
      'model = "o3"\n[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.coord]\ncommand = "/usr/bin/node"\nargs = ["/opt/coord/bin/coord.js", "mcp"]\n',
    );
    assert.equal(mergeCodexToml(first.text, launch).changed, false);
    assert.equal(mergeCodexToml('[mcp_servers."coord"]\ncommand = "y"\n', launch).changed, false);
    assert.ok(mergeCodexToml(null, launch).changed);
  });

  test('printing each configuration names this coord by absolute paths and writes nothing', async () => {
    const cwd = tempDir('coord-setup-');
    mkdirSync(join(cwd, '.git'));
    const home = tempDir('coord-codex-');
    const claude = await coord(['setup', 'claude'], { cwd });
    assert.equal(claude.code, 0);
    assert.equal(claude.stdout, `claude mcp add --scope user coord -- ${process.execPath} ${BIN} mcp\n`);
    const cursor = await coord(['setup', 'cursor', '--json'], { cwd });
    const out = JSON.parse(cursor.stdout);
    assert.equal(out.target, join(cwd, '.cursor/mcp.json'));
    assert.deepEqual(out.config, { mcpServers: { coord: { command: process.execPath, args: [BIN, 'mcp'] } } });
    assert.equal(out.status, 'printed');
    const codex = await coord(['setup', 'codex'], { cwd, env: { CODEX_HOME: home } });
    assert.match(codex.stdout, /^\[mcp_servers\.coord\]\ncommand = ".*node"\nargs = \[".*bin\/coord\.js", "mcp"\]$/m);
    assert.equal(existsSync(join(cwd, '.cursor')), false);
    assert.equal(existsSync(join(home, 'config.toml')), false);
  });

  test('--write adds coord to each client once: a second run changes nothing', async () => {
    const cwd = tempDir('coord-setup-');
    mkdirSync(join(cwd, '.git'));
    mkdirSync(join(cwd, '.cursor'));
    writeFileSync(join(cwd, '.cursor/mcp.json'), '{"mcpServers":{"other":{"command":"x"}}}');
    const home = tempDir('coord-codex-');
    writeFileSync(join(home, 'config.toml'), 'model = "o3"\n');
    // Claude Code's CLI is not installed here: a stand-in records what it is asked and remembers an add.
    const bin = tempDir('coord-fake-claude-');
    const calls = join(bin, 'calls.log');
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh\necho "$*" >> ${calls}\nif [ "$2" = get ]; then [ -f ${bin}/added ]; exit $?; fi\ntouch ${bin}/added\n`,
    );
    chmodSync(join(bin, 'claude'), 0o755);
    const env = { CODEX_HOME: home, PATH: `${bin}:${process.env.PATH}` };
    for (const run of [1, 2]) {
      for (const client of ['claude', 'cursor', 'codex']) {
        const res = await coord(['setup', client, '--write', '--json'], { cwd, env });
        assert.equal(res.code, 0, res.stderr);
        assert.equal(JSON.parse(res.stdout).status, run === 1 ? 'written' : 'present', `${client} run ${run}`);
      }
    }
    assert.equal(
      readFileSync(calls, 'utf8'),
      `mcp get coord\nmcp add --scope user coord -- ${process.execPath} ${BIN} mcp\nmcp get coord\n`,
    );
    const cursor = JSON.parse(readFileSync(join(cwd, '.cursor/mcp.json'), 'utf8'));
    assert.deepEqual(Object.keys(cursor.mcpServers), ['other', 'coord']);
    const toml = readFileSync(join(home, 'config.toml'), 'utf8');
    assert.equal(toml.match(/\[mcp_servers\.coord\]/g)?.length, 1);
    assert.ok(toml.startsWith('model = "o3"\n'));
  });

  test('--write refuses to touch a .cursor/mcp.json it cannot read, and exits 1', async () => {
    const cwd = tempDir('coord-setup-');
    mkdirSync(join(cwd, '.cursor'));
    writeFileSync(join(cwd, '.cursor/mcp.json'), '{ broken');
    const res = await coord(['setup', 'cursor', '--write'], { cwd });
    assert.equal(res.code, 1);
    assert.match(res.stdout, /unchanged: it is not valid JSON/);
    assert.equal(readFileSync(join(cwd, '.cursor/mcp.json'), 'utf8'), '{ broken');
  });
});
