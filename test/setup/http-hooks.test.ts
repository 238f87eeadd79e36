/**
 * SPEC §10 "the client's cheapest hook" in setup: user scope writes Claude Code's and Qwen Code's shell hooks
 * as `http` hooks to the daemon's hook route with the hook key (derived from the state directory's token,
 * never the token itself); project scope — a file that may be committed — gets command hooks and no key.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { repoWithWorktrees } from '../worktrees/git-repo.js';

const setup = (h: string, cwd: string, ...args: string[]) =>
  runCoord(['setup', ...args, '--write', '--state', join(h, 'state')], {
    cwd,
    env: { HOME: h, CLAUDE_CONFIG_DIR: '', COORD_PORT: '' },
  });

type Group = { matcher?: string; hooks: { type: string; url?: string; headers?: Record<string, string> }[] };
const shellHooks = (settings: { hooks: Record<string, Group[]> }, matcher: string) =>
  ['PreToolUse', 'PostToolUse'].map((e) => settings.hooks[e]?.find((g) => g.matcher === matcher)?.hooks[0]);

test('user scope: the shell hooks of Claude Code and Qwen Code are http hooks to the hook route with the hook key; project scope: command hooks, no key written', async () => {
  const h = tempDir('coord-home-');
  const repo = repoWithWorktrees(0).main;
  for (const client of ['claude', 'qwen']) assert.equal((await setup(h, repo, client)).code, 0);
  const token = readFileSync(join(h, 'state', 'token'), 'utf8').trim();
  const key = hookKeyOf(token);
  const read = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
  for (const [file, client, matcher] of [
    [join(h, '.claude', 'settings.json'), 'claude', 'Bash'],
    [join(h, '.qwen', 'settings.json'), 'qwen', 'run_shell_command'],
  ] as const) {
    const [pre, post] = shellHooks(read(file), matcher);
    assert.equal(pre?.type, 'http', file);
    assert.equal(pre?.url, `http://127.0.0.1:7777/v1/hooks/${client}/pre-shell`);
    assert.equal(post?.url, `http://127.0.0.1:7777/v1/hooks/${client}/post-shell`);
    assert.equal(pre?.headers?.Authorization, `Bearer ${key}`);
    assert.ok(!readFileSync(file, 'utf8').includes(token), 'the token itself is never written');
  }
  assert.equal((await setup(h, repo, 'claude', '--scope', 'project')).code, 0);
  const project = readFileSync(join(repo, '.claude', 'settings.json'), 'utf8');
  assert.deepEqual(
    shellHooks(JSON.parse(project), 'Bash').map((x) => x?.type),
    ['command', 'command'],
  );
  assert.ok(!project.includes(key) && !project.includes(token), 'no key in a file that may be committed');
});
