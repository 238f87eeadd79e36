/**
 * SPEC §10, §12 through the daemon's own `http` stop hook (`POST /v1/hooks/claude/stop`, what `coord run` gives
 * Claude Code): a stop is held once with the messages never shown before and the tasks handed to the agent, in
 * the same words as the command hook (`coord hook stop`), recorded `via: stop`, and never again for them; a
 * client already continuing for a stop hook is let go. Real daemon, real hook process.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hookPath } from '../../src/api/paths.js';
import { identify } from '../../src/client/agent-identity.js';
import { hookKeyOf } from '../../src/state-dir/token.js';
import { daemonOnRepo } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

describe('the stop hook answered by the daemon', () => {
  const on = daemonOnRepo();
  const agentOf = (session: string) => identify('claude', { CLAUDE_CODE_SESSION_ID: session })?.agent ?? '';
  const input = (session: string, active = false) => ({
    session_id: session,
    hook_event_name: 'Stop',
    stop_hook_active: active,
    cwd: on.root,
  });
  const httpStop = async (session: string, active = false) => {
    const res = await fetch(on.d.url + hookPath('claude', 'stop'), {
      method: 'POST',
      headers: { authorization: `Bearer ${hookKeyOf(on.d.token)}`, 'content-type': 'application/json' },
      body: JSON.stringify(input(session, active)),
    });
    assert.equal(res.status, 200);
    return (await res.json()) as { decision?: string; reason?: string };
  };
  const commandStop = async (session: string) => {
    const r = await runCoord(['hook', 'stop', '--client', 'claude', '--state', on.d.stateDir], {
      stdin: input(session),
      env: { CLAUDE_CODE_SESSION_ID: session },
      cwd: on.root,
    });
    return r.stdout.trim() ? (JSON.parse(r.stdout) as { decision?: string; reason?: string }) : {};
  };
  /** A message and a task for the agent alone, from alice; their ids. */
  const news = async (agent: string) => {
    const sent = await on.d.fetch('/v1/messages', {
      method: 'POST',
      json: { board: on.board, agent: 'alice', to: agent, text: 'CI is red on main, can you look?' },
    });
    assert.equal(sent.status, 201);
    const task = await on.d.fetch('/v1/tasks', {
      method: 'POST',
      json: { board: on.board, agent: 'alice', title: 'review it', for: agent },
    });
    return {
      message: ((await sent.json()) as { message: { id: string } }).message.id,
      task: ((await task.json()) as { task: { id: string } }).task.id,
    };
  };
  const via = async (id: string) => {
    const sent = (await (await on.d.fetch(`/v1/messages?agent=alice&box=sent&board=${on.board}`)).json()) as {
      messages: { id: string; receipts: { delivered_via: string | null }[] }[];
    };
    return sent.messages.find((m) => m.id === id)?.receipts[0]?.delivered_via ?? null;
  };

  test('holds the stop once with the news, recorded via stop, and lets a client already continuing go', async () => {
    const ids = await news(agentOf('http-stop'));
    assert.deepEqual(await httpStop('http-stop', true), {}, 'a client already continuing for a stop hook is let go');
    assert.equal(await via(ids.message), null, '…and nothing was recorded as shown');
    const held = await httpStop('http-stop');
    assert.equal(held.decision, 'block');
    assert.match(
      held.reason ?? '',
      new RegExp(`^coord: a message for you since you last looked:\nmsg ${ids.message} from alice`),
    );
    assert.match(held.reason ?? '', new RegExp(`#${ids.task} task from alice: review it`));
    assert.equal(await via(ids.message), 'stop');
    assert.deepEqual(await httpStop('http-stop'), {}, 'the same message and task never hold it twice');
  });

  test('says what the command hook says for the same news', async () => {
    const byCommand = await news(agentOf('door-command'));
    const byHttp = await news(agentOf('door-http'));
    const words = (a: { decision?: string; reason?: string }, ids: { message: string; task: string }) => ({
      decision: a.decision,
      reason: (a.reason ?? '')
        .replace(ids.message, 'MSG')
        .replace(ids.task, 'TASK')
        .replace(/ \d+s: /g, ' Ns: '),
    });
    assert.deepEqual(words(await httpStop('door-http'), byHttp), words(await commandStop('door-command'), byCommand));
  });

  test("coord's own notice that asks nothing (a merge's) holds no stop through either door, and is not recorded as shown", async () => {
    for (const [door, stop] of [
      ['http', httpStop],
      ['command', commandStop],
    ] as const) {
      const session = `notice-${door}`;
      const notice = await on.d.fetch('/v1/messages', {
        method: 'POST',
        json: { board: on.board, agent: 'coord', to: agentOf(session), text: '#k3x9 merged into main as 3f2a1c' },
      });
      assert.equal(notice.status, 201);
      const id = ((await notice.json()) as { message: { id: string } }).message.id;
      assert.deepEqual(await stop(session), {}, `${door}: a merge notice lets the agent stop`);
      const mine = (await (
        await on.d.fetch(`/v1/messages?agent=${encodeURIComponent(agentOf(session))}&board=${on.board}`)
      ).json()) as { messages: { id: string; receipts: { delivered_via: string | null }[] }[] };
      const kept = mine.messages.find((m) => m.id === id);
      assert.ok(kept, `${door}: the notice stays for the inbox`);
      assert.notEqual(kept.receipts[0]?.delivered_via, 'stop', `${door}: not recorded as shown by the stop hook`);
      // A message a person sends still holds it.
      await news(agentOf(session));
      assert.equal((await stop(session)).decision, 'block', `${door}: a person's message still holds the stop`);
    }
  });
});
