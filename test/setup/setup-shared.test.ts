/**
 * Issue 34 item 15: two clients' project setups share a file (`.mcp.json` for Claude Code and Copilot,
 * `AGENTS.md` for Codex and OpenCode). Writers of it take turns — the later one reads what the earlier
 * wrote — both write the same one entry, and one client's --remove never takes out what the other uses,
 * nor does the last --remove put back the other's entry.
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
  /** Two `coord setup --write` processes at once: the first holds its lock between reading and writing. */
  async function race(project: string, state: string, first: string, second: string) {
    const gate = join(project, 'gate');
    const a = setup(project, state, [first, '--write'], { COORD_TEST_SETUP_PAUSE: gate, COORD_CODEX_BIN: 'none' });
    await waitFor(() => existsSync(`${gate}.reached`), 'the first setup read its files');
    let stderr = '';
    let exited = false;
    const b = setup(project, state, [second, '--write'], { COORD_CODEX_BIN: 'none' }, (child) => {
      child.stderr?.on('data', (d) => {
        stderr += String(d);
      });
      child.on('exit', () => {
        exited = true;
      });
    });
    try {
      await waitFor(
        () => exited || stderr.includes('waiting for another coord setup'),
        'the second setup waits or ends',
      );
      assert.ok(!exited, 'the second setup waits for the first to write: it does not merge into what it read before');
    } finally {
      writeFileSync(gate, '');
    }
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.match(ra.stdout, /^written /m);
    assert.match(rb.stdout, /^written /m);
    assert.ok(!existsSync(join(project, '.coord-setup.lock')), 'the lock file is gone');
    return [ra, rb];
  }
  const recorded = (state: string, client: string, file: string) =>
    manifestOf(state, client).files.find((f: { path: string }) => f.path.endsWith(file));

  test('Claude Code and Copilot set up at once: one coord entry in .mcp.json, what each of them wrote', async () => {
    const project = tempDir('coord-shared-');
    const state = join(project, 'state');
    await race(project, state, 'claude', 'copilot');
    const text = readFileSync(join(project, '.mcp.json'), 'utf8');
    assert.equal(recorded(state, 'claude', '.mcp.json').after, text, "claude's entry is in the file as it wrote it");
    assert.equal(recorded(state, 'copilot', '.mcp.json').after, text, "copilot's entry is in the file as it wrote it");
    const entry = mcpJson(project).mcpServers.coord;
    assert.equal(entry.type, 'stdio', 'a type both clients read');
    assert.ok(!entry.args.includes('--client'), 'coord mcp tells the two clients apart by their session variable');
  });

  test('Codex and OpenCode set up at once: both keep the one AGENTS.md section', async () => {
    const project = tempDir('coord-shared-');
    const state = join(project, 'state');
    await race(project, state, 'codex', 'opencode');
    const text = readFileSync(join(project, 'AGENTS.md'), 'utf8');
    assert.equal(text.match(/coord:begin/g)?.length, 1);
    assert.equal(recorded(state, 'codex', 'AGENTS.md').after, text);
    assert.equal(recorded(state, 'opencode', 'AGENTS.md').after, text);
    assert.ok(existsSync(join(project, 'opencode.json')) && existsSync(join(project, '.codex', 'config.toml')));
  });

  test("one client's --remove keeps the shared entry; the last takes it out, keeps the user's, and puts no other setup's entry back", async () => {
    const project = tempDir('coord-shared-');
    const state = join(project, 'state');
    assert.equal((await setup(project, state, ['copilot', '--write'])).code, 0);
    assert.equal((await setup(project, state, ['claude', '--write'])).code, 0);
    const doc = mcpJson(project);
    doc.mcpServers.mine = { command: 'mine' };
    writeFileSync(join(project, '.mcp.json'), `${JSON.stringify(doc, null, 2)}\n`);
    const first = await setup(project, state, ['copilot', '--remove']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /claude uses it too/);
    assert.ok(mcpJson(project).mcpServers.coord, "one client's --remove leaves the entry the other uses");
    const r = await setup(project, state, ['claude', '--remove']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(mcpJson(project), { mcpServers: { mine: { command: 'mine' } } });
  });
});
