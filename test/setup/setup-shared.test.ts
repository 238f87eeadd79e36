/**
 * Issue 34 item 15: two clients' project setups share a file (`.mcp.json` for Claude Code and Copilot).
 * Writers of it take turns — the later one reads what the earlier wrote — and one client's --remove leaves
 * a file the other's setup also wrote as it is.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { waitFor } from '../support/wait-for.js';

const setup = (
  project: string,
  state: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  started?: (c: ChildProcess) => void,
) =>
  runCoord(['setup', ...args, '--scope', 'project', '--state', state], {
    cwd: project,
    env: { HOME: join(project, 'home'), CLAUDE_CONFIG_DIR: '', ...env },
    ...(started ? { started } : {}),
  });

const mcpJson = (project: string) => JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'));
const manifestOf = (state: string, client: string) => {
  const name = readdirSync(join(state, 'setup')).find((n) => n.startsWith(`${client}-project`)) ?? '';
  return JSON.parse(readFileSync(join(state, 'setup', name), 'utf8'));
};

describe('setups sharing a file', () => {
  test('a second setup writing the same file waits for the first and reads what it wrote', async () => {
    const project = tempDir('coord-shared-');
    const state = join(project, 'state');
    const gate = join(project, 'gate');
    const first = setup(project, state, ['claude', '--write'], { COORD_TEST_SETUP_PAUSE: gate });
    await waitFor(() => existsSync(`${gate}.reached`), 'the first setup read its files');
    let stderr = '';
    let exited = false;
    const second = setup(project, state, ['copilot', '--write'], {}, (child) => {
      child.stderr?.on('data', (d) => {
        stderr += String(d);
      });
      child.on('exit', () => {
        exited = true;
      });
    });
    await waitFor(() => exited || stderr.includes('waiting for another coord setup'), 'the second setup waits or ends');
    writeFileSync(gate, '');
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const claudeWrote = manifestOf(state, 'claude').files.find((f: { path: string }) => f.path.endsWith('.mcp.json'));
    const copilotSaw = manifestOf(state, 'copilot').files.find((f: { path: string }) => f.path.endsWith('.mcp.json'));
    assert.equal(copilotSaw.before, claudeWrote.after, 'copilot merged into what claude had written');
    assert.ok(!existsSync(join(project, '.coord-setup.lock')), 'the lock file is gone');
  });

  test("one client's --remove leaves the other's entry in the shared .mcp.json", async () => {
    const project = tempDir('coord-shared-');
    const state = join(project, 'state');
    assert.equal((await setup(project, state, ['claude', '--write'])).code, 0);
    assert.equal((await setup(project, state, ['copilot', '--write'])).code, 0);
    const r = await setup(project, state, ['claude', '--remove']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(mcpJson(project).mcpServers?.coord, "copilot's coord entry is still there");
    assert.match(r.stdout, /copilot uses it too/);
  });
});
