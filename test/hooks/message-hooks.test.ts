/**
 * SPEC §10 + §12 through real hook processes and a real daemon: `coord prime` shows the agent's
 * unacknowledged messages within its 1,000 bytes (recorded `via: prime`, never consumed); the stop hook
 * blocks once with the messages never shown before, together with the tasks handed to the agent, and
 * never again for them; a message sent to the name a session's `coord mcp` acts as reaches that
 * session's hooks.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { identify } from '../../src/client/agent-identity.js';
import { COORD, childEnv } from '../support/daemon.js';
import { daemonOnRepo } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

const [cmd, ...base] = COORD as [string, ...string[]];

interface Receipt {
  agent: string;
  delivered_at: string | null;
  delivered_via: string | null;
  acked_at: string | null;
}

describe('messages at session start and at the stop hook', () => {
  const on = daemonOnRepo();

  const claude = (session: string) => {
    const env = { CLAUDE_CODE_SESSION_ID: session };
    return { env, agent: identify('claude', env)?.agent ?? '' };
  };
  const hook = (args: string[], env: NodeJS.ProcessEnv, stdin: Record<string, unknown> = {}) =>
    runCoord([...args, '--state', on.d.stateDir], { stdin: { cwd: on.root, ...stdin }, env, cwd: on.root });
  const prime = (env: NodeJS.ProcessEnv) =>
    hook(['prime', '--client', 'claude'], env, { hook_event_name: 'SessionStart', source: 'startup' });
  const stop = (env: NodeJS.ProcessEnv, active = false) =>
    hook(['hook', 'stop', '--client', 'claude'], env, { hook_event_name: 'Stop', stop_hook_active: active });
  const send = async (to: string, text: string, extra: Record<string, unknown> = {}) => {
    const res = await on.d.fetch('/v1/messages', {
      method: 'POST',
      json: { board: on.board, agent: 'alice', to, text, ...extra },
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { message: { id: string } }).message.id;
  };
  const receipt = async (id: string): Promise<Receipt> => {
    const sent = (await (await on.d.fetch(`/v1/messages?agent=alice&box=sent&board=${on.board}`)).json()) as {
      messages: { id: string; receipts: Receipt[] }[];
    };
    const r = sent.messages.find((m) => m.id === id)?.receipts[0];
    assert.ok(r, `no receipt for ${id}`);
    return r;
  };

  test('coord prime shows an unacknowledged message, records it as shown via prime, and shows it again until acknowledged', async () => {
    const { env, agent } = claude('prime-messages');
    const id = await send(agent, 'the parser is yours now — tests in test/parse', { ack_required: true });
    const first = await prime(env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`^msg ${id} from alice \\d+s, ack: the parser is yours now`, 'm'));
    assert.equal((first.stdout.match(new RegExp(id, 'g')) ?? []).length, 1, 'listed once, not also by the inbox');
    assert.equal((await receipt(id)).delivered_via, 'prime');
    assert.match((await prime(env)).stdout, new RegExp(`^msg ${id} `, 'm'), 'reading never consumes');
    await on.d.fetch(`/v1/messages/${id}/ack`, { method: 'POST', json: { agent } });
    assert.doesNotMatch((await prime(env)).stdout, new RegExp(id), 'gone once acknowledged');
  });

  test('coord prime keeps to 1,000 bytes with the rules when many long messages and tasks wait', async () => {
    const { env, agent } = claude('prime-crowded');
    for (let i = 0; i < 12; i++) await send(agent, `message ${i} `.padEnd(300, 'x'));
    for (let i = 0; i < 10; i++)
      await on.d.fetch('/v1/tasks', {
        method: 'POST',
        json: { board: on.board, agent: 'alice', title: `task ${i}`.padEnd(90, '.') },
      });
    const r = await prime(env);
    assert.ok(Buffer.byteLength(r.stdout) <= 1001, `${Buffer.byteLength(r.stdout)} bytes`);
    assert.match(r.stdout, /^msg \S+ from alice \d+s: message 0 x+…$/m);
    assert.match(r.stdout, /Rules: 1\) claim_task .* 4\) Files you edit are locked for you/);
  });

  test('the stop hook blocks once with a new message and a handed task together, then never again for them', async () => {
    const { env, agent } = claude('stop-messages');
    assert.equal((await stop(env)).stdout, '', 'nothing for it yet');
    const id = await send(agent, 'CI is red on main, can you look?');
    const task = (await (
      await on.d.fetch('/v1/tasks', {
        method: 'POST',
        json: { board: on.board, agent: 'alice', title: 'review it', for: agent },
      })
    ).json()) as { task: { id: string } };
    assert.equal((await stop(env, true)).stdout, '', 'a client already continuing for a stop hook is let go');
    assert.equal((await receipt(id)).delivered_at, null, '…and nothing was recorded as shown');
    const answer = JSON.parse((await stop(env)).stdout);
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, new RegExp(`^coord: a message for you since you last looked:\nmsg ${id} from alice`));
    assert.match(answer.reason, /CI is red on main, can you look\?/);
    assert.match(answer.reason, new RegExp(`#${task.task.id} task from alice: review it`));
    assert.equal((await receipt(id)).delivered_via, 'stop');
    assert.equal((await stop(env)).stdout, '', 'the same message and task never block twice');
  });

  test('a message the agent has already been shown (inbox) does not block its stop', async () => {
    const { env, agent } = claude('stop-seen');
    const id = await send(agent, 'FYI: I renamed the config loader');
    await on.d.fetch(`/v1/inbox?agent=${encodeURIComponent(agent)}&board=${on.board}`);
    assert.equal((await receipt(id)).delivered_via, 'inbox');
    assert.equal((await stop(env)).stdout, '');
  });

  test('a message sent to the agent a Claude Code session’s coord mcp acts as reaches that session’s stop hook', async () => {
    const env = { CLAUDE_CODE_SESSION_ID: 'mcp-and-hooks' };
    const transport = new StdioClientTransport({
      command: cmd,
      args: [...base, 'mcp', '--client', 'claude', '--state', on.d.stateDir],
      cwd: on.root,
      env: childEnv({ COORD_AGENT: '', COORD_BOARD: '', ...env }) as Record<string, string>,
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'claude-code', version: '1' });
    await mcp.connect(transport);
    try {
      // The name it acts as: the sender of what it sends.
      await mcp.callTool({ name: 'send_message', arguments: { to: 'alice', text: 'who am I?' } });
      const got = (await (await on.d.fetch(`/v1/messages?agent=alice&board=${on.board}`)).json()) as {
        messages: { from: string; text: string }[];
      };
      const name = got.messages.find((m) => m.text === 'who am I?')?.from ?? '';
      assert.equal(name, identify('claude', env)?.agent, 'the name its hooks derive');
      const id = await send(name, 'hello from alice');
      const r = await stop(env);
      const answer = JSON.parse(r.stdout);
      assert.match(answer.reason, new RegExp(`msg ${id} from alice \\d+s: hello from alice`));
    } finally {
      await mcp.close();
    }
  });
});
