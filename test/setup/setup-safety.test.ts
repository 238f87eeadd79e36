/**
 * Setup never damages a user's files (issue 23 item 6): --remove takes out exactly what coord added —
 * found by its record, or without one by its marks — and nothing else; a second --remove changes no
 * byte and says nothing was there; --write writes every file or none; a symlinked instructions file
 * is written and restored through its link, which is never deleted.
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { ROOT } from '../support/daemon.js';

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : null);

function home(files: Record<string, string> = {}): string {
  const h = tempDir('coord-safe-');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(h, rel)), { recursive: true });
    writeFileSync(join(h, rel), text);
  }
  return h;
}

const setup = (h: string, state: string, ...args: string[]) =>
  runCoord(['setup', ...args, '--state', state], {
    cwd: ROOT,
    env: { HOME: h, CODEX_HOME: join(h, '.codex'), CLAUDE_CONFIG_DIR: '', COORD_CODEX_BIN: join(h, 'no-codex') },
  });

describe('setup never damages a user’s files', () => {
  test('--remove keeps every empty {} and [] the user (or the client) put in the file after setup', async () => {
    const h = home({ '.claude.json': json({ numStartups: 1 }) });
    const state = join(h, 'state');
    assert.equal((await setup(h, state, 'claude', '--write')).code, 0);
    // After setup, the user and Claude Code add entries of their own, some of them empty.
    const mcp = JSON.parse(read(join(h, '.claude.json')) ?? '{}');
    mcp.env = {};
    mcp.projects = { '/work/x': { allowedTools: [], mcpContextUris: [], history: [] } };
    mcp.mcpServers.other = { command: 'x', env: {} };
    writeFileSync(join(h, '.claude.json'), json(mcp));
    const settings = JSON.parse(read(join(h, '.claude', 'settings.json')) ?? '{}');
    settings.env = {};
    writeFileSync(join(h, '.claude', 'settings.json'), json(settings));

    const r = await setup(h, state, 'claude', '--remove');
    assert.equal(r.code, 0, r.stderr);
    const after = JSON.parse(read(join(h, '.claude.json')) ?? '{}');
    assert.deepEqual(after, {
      numStartups: 1,
      env: {},
      projects: { '/work/x': { allowedTools: [], mcpContextUris: [], history: [] } },
      mcpServers: { other: { command: 'x', env: {} } },
    });
    assert.deepEqual(JSON.parse(read(join(h, '.claude', 'settings.json')) ?? '{}'), { env: {} });
  });

  test('without its record (another state directory), --remove still takes out mcpServers.coord and mcp__coord, and says so', async () => {
    const h = home({
      '.claude.json': json({ mcpServers: { mine: { command: 'm' } } }),
      '.claude/settings.json': json({ permissions: { allow: ['Bash(ls)'] } }),
    });
    assert.equal((await setup(h, join(h, 'state-a'), 'claude', '--write')).code, 0);
    const r = await setup(h, join(h, 'state-b'), 'claude', '--remove');
    assert.equal(r.code, 0, r.stderr);
    const mcp = JSON.parse(read(join(h, '.claude.json')) ?? '{}');
    assert.deepEqual(mcp.mcpServers, { mine: { command: 'm' } });
    const settings = JSON.parse(read(join(h, '.claude', 'settings.json')) ?? '{}');
    assert.deepEqual(settings.permissions.allow, ['Bash(ls)']);
    assert.doesNotMatch(JSON.stringify(settings), /--client claude/);
    assert.match(r.stdout, /no record/);
    assert.match(r.stdout, /removed/);
    assert.doesNotMatch(read(join(h, '.claude', 'CLAUDE.md')) ?? '', /coord:begin/);
  });

  test('a second --remove changes no byte of the user’s JSON and says nothing of coord’s was there', async () => {
    // The user's own formatting: compact, not coord's two-space JSON.
    const prior = '{"theme":"dark","mcpServers":{"mine":{"command":"m"}}}\n';
    const h = home({ '.gemini/settings.json': prior });
    const state = join(h, 'state');
    assert.equal((await setup(h, state, 'gemini', '--write')).code, 0);
    assert.equal((await setup(h, state, 'gemini', '--remove')).code, 0);
    assert.equal(read(join(h, '.gemini', 'settings.json')), prior);
    const again = await setup(h, state, 'gemini', '--remove');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(read(join(h, '.gemini', 'settings.json')), prior, 'byte-identical');
    assert.doesNotMatch(again.stdout, /^(removed|restored|deleted)/m);
    assert.match(again.stdout, /nothing of coord's/);
  });

  test('--write writes every file or none: a settings.json that cannot be written leaves ~/.claude.json untouched and no record', async () => {
    const prior = json({ numStartups: 7 });
    const h = home({ '.claude.json': prior });
    // ~/.claude is a file, so ~/.claude/settings.json cannot be created (root can write a read-only file).
    writeFileSync(join(h, '.claude'), 'not a folder\n');
    const state = join(h, 'state');
    const r = await setup(h, state, 'claude', '--write');
    assert.notEqual(r.code, 0, r.stdout);
    assert.match(r.stderr, /nothing was written/);
    assert.equal(read(join(h, '.claude.json')), prior);
    assert.ok(!existsSync(join(state, 'setup', 'claude-user.json')), 'no record of a setup that did not happen');
  });

  test('--write to a read-only settings.json changes nothing (skipped as root, who may write it)', {
    skip: process.getuid?.() === 0,
  }, async () => {
    const prior = json({ numStartups: 7 });
    const h = home({ '.claude.json': prior, '.claude/settings.json': json({}) });
    chmodSync(join(h, '.claude', 'settings.json'), 0o444);
    const r = await setup(h, join(h, 'state'), 'claude', '--write');
    assert.notEqual(r.code, 0);
    assert.equal(read(join(h, '.claude.json')), prior);
  });

  test('a symlinked CLAUDE.md is written through its link; --remove restores the target and keeps the link, dangling ones included', async () => {
    const h = home({ 'dotfiles/CLAUDE.md': '# mine\n' });
    mkdirSync(join(h, '.claude'), { recursive: true });
    symlinkSync(join(h, 'dotfiles', 'CLAUDE.md'), join(h, '.claude', 'CLAUDE.md'));
    // A dangling link: its target does not exist yet.
    const dangling = home();
    mkdirSync(join(dangling, '.claude'), { recursive: true });
    mkdirSync(join(dangling, 'dotfiles'));
    symlinkSync(join(dangling, 'dotfiles', 'CLAUDE.md'), join(dangling, '.claude', 'CLAUDE.md'));

    for (const [dir, before] of [
      [h, '# mine\n'],
      [dangling, null],
    ] as const) {
      const state = join(dir, 'state');
      assert.equal((await setup(dir, state, 'claude', '--write')).code, 0);
      const link = join(dir, '.claude', 'CLAUDE.md');
      assert.ok(lstatSync(link).isSymbolicLink(), 'still a link after --write');
      assert.match(read(join(dir, 'dotfiles', 'CLAUDE.md')) ?? '', /coord:begin/);
      const r = await setup(dir, state, 'claude', '--remove');
      assert.equal(r.code, 0, r.stderr);
      assert.ok(lstatSync(link).isSymbolicLink(), 'the link is kept');
      assert.equal(readlinkSync(link), join(dir, 'dotfiles', 'CLAUDE.md'));
      assert.equal(read(join(dir, 'dotfiles', 'CLAUDE.md')), before, 'the target is as it was');
    }
    rmSync(h, { recursive: true, force: true });
  });
});
