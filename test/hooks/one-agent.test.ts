/**
 * SPEC §10 one agent, one name: a client session's `coord mcp` and its hooks act as the same agent, so
 * its own lock_files never blocks its edits, and the auto-locks its hooks took die with its session.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { COORD, childEnv } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { daemonOnRepo } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

const [cmd, ...base] = COORD as [string, ...string[]];

describe('one agent across a session’s MCP server and hooks', () => {
  const on = daemonOnRepo();

  /** `named: false`: started as the `.mcp.json` entry Claude Code and Copilot CLI share starts it, without --client. */
  async function mcp(client: string, env: NodeJS.ProcessEnv, named = true) {
    const transport = new StdioClientTransport({
      command: cmd,
      // The core set: Gemini CLI's default (lean) leaves lock_files out, which this test calls.
      args: [...base, 'mcp', ...(named ? ['--client', client] : []), '--tools', 'core', '--state', on.d.stateDir],
      cwd: on.root,
      env: childEnv({ COORD_AGENT: '', COORD_BOARD: '', ...env }) as Record<string, string>,
      stderr: 'pipe',
    });
    const c = new Client({ name: client === 'claude' ? 'claude-code' : 'gemini-cli-mcp-client', version: '1' });
    await c.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = (await c.callTool({ name, arguments: args })) as any;
      return { text: String(res.content?.[0]?.text ?? ''), data: res._meta?.['coord/data'] };
    };
    return { client: c, call };
  }
  const edit = (client: string, file: string, env: NodeJS.ProcessEnv, session?: string) =>
    runCoord(['hook', 'pre-edit', '--client', client, '--state', on.d.stateDir], {
      stdin: {
        cwd: on.root,
        tool_name: client === 'copilot' ? 'edit' : 'Edit',
        tool_input: { file_path: join(on.root, file), path: join(on.root, file) },
        ...(session ? { session_id: session } : {}),
      },
      env,
      cwd: on.root,
    });
  const locksOf = async (agent: string) =>
    (
      (await (await on.d.fetch(`/v1/locks?board=${on.board}`)).json()) as {
        locks: { agent: string; resources: string[] }[];
      }
    ).locks.filter((l) => l.agent === agent);

  test('Claude Code: its own lock_files never blocks its edit; its auto-locks and locks are freed when its coord mcp exits', async () => {
    const env = { CLAUDE_CODE_SESSION_ID: 'claude-session-one' };
    const agent = await mcp('claude', env);
    assert.match((await agent.call('lock_files', { files: ['src/mine.ts'] })).text, /^locked /);
    const who = (await agent.call('who', {})).text;
    assert.match(who, /claude#[0-9a-f]{6}/);
    const name = who.match(/(claude#[0-9a-f]{6})/)?.[1] ?? '';
    assert.equal((await edit('claude', 'src/mine.ts', env)).stdout, '', 'its own lock_files lock');
    assert.equal((await edit('claude', 'src/auto.ts', env)).stdout, '', 'a free file');
    assert.deepEqual((await locksOf(name)).flatMap((l) => l.resources).sort(), ['src/auto.ts', 'src/mine.ts']);
    const other = await edit('claude', 'src/auto.ts', { CLAUDE_CODE_SESSION_ID: 'claude-session-two' });
    assert.match(JSON.parse(other.stdout).hookSpecificOutput.permissionDecisionReason, new RegExp(`held by ${name}`));
    await agent.client.close();
    await waitFor(async () => (await locksOf(name)).length === 0, "the session's locks freed");
    assert.equal((await edit('claude', 'src/auto.ts', { CLAUDE_CODE_SESSION_ID: 'claude-session-two' })).stdout, '');
  });

  test("Copilot CLI through the project's shared .mcp.json entry (no --client): its MCP server and its hooks are one agent", async () => {
    const agent = await mcp('copilot', { COPILOT_AGENT_SESSION_ID: 'copilot-session-one' }, false);
    assert.match((await agent.call('lock_files', { files: ['src/cop.ts'] })).text, /^locked /);
    const name = (await agent.call('who', {})).text.match(/(copilot#[0-9a-f]{6})/)?.[1];
    assert.ok(name, 'the agent is named for copilot, as its hooks name it');
    assert.equal((await edit('copilot', 'src/cop.ts', {}, 'copilot-session-one')).stdout, '', 'its own lock');
    const other = await edit('copilot', 'src/cop.ts', {}, 'copilot-session-two');
    assert.match(other.stdout, new RegExp(`held by ${name}`));
    await agent.client.close();
  });

  test('Gemini CLI, which shares nothing but its process: the hook and the MCP server it started are one agent', async () => {
    // Here the test process stands in for gemini: it starts the MCP server and runs the hook itself.
    const agent = await mcp('gemini', {});
    await agent.call('lock_files', { files: ['src/gem.ts'] });
    const r = await edit('gemini', 'src/gem.ts', {});
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    await agent.client.close();
  });
});
