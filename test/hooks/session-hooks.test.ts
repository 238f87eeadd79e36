/**
 * SPEC §10 session-start and stop, through real hook processes: `coord prime` fits in 1,000 bytes and
 * answers Gemini CLI in JSON; the stop hook blocks once for a task handed to the agent, never twice.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { identify } from '../../src/client/agent-identity.js';
import { daemonOnRepo } from './daemon-on-repo.js';
import { runCoord } from './run-hook.js';

describe('session-start and stop hooks', () => {
  const on = daemonOnRepo();
  const session = { CLAUDE_CODE_SESSION_ID: 'primed-session' };
  const me = identify('claude', session)?.agent ?? '';
  const hook = (args: string[], stdin: unknown, env: NodeJS.ProcessEnv = session) =>
    runCoord([...args, '--state', on.d.stateDir], { stdin: { cwd: on.root, ...(stdin as object) }, env, cwd: on.root });
  const post = (json: Record<string, unknown>) =>
    on.d.fetch('/v1/tasks', { method: 'POST', json: { board: on.board, agent: 'poster', ...json } });

  test('coord prime names the agent and board, lists its inbox and the four rules, in at most 1,000 bytes', async () => {
    for (let i = 0; i < 25; i++)
      await post({ title: `a task with a long enough title to fill the inbox up ${i}`.padEnd(120, '.') });
    const r = await hook(['prime', '--client', 'claude'], { hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Buffer.byteLength(r.stdout) <= 1001, `${Buffer.byteLength(r.stdout)} bytes`);
    assert.match(r.stdout, new RegExp(`^coord: you are ${me.replace('#', '#')} on board ${on.board}`));
    assert.match(r.stdout, /to claim/);
    assert.match(r.stdout, /Rules: 1\) claim_task .* 4\) Files you edit are locked for you/);
  });

  test('for Gemini CLI, prime answers JSON additionalContext (plain output would reach only the user)', async () => {
    const r = await hook(['prime', '--client', 'gemini'], { hook_event_name: 'SessionStart' }, {});
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    assert.equal(out.hookEventName, 'SessionStart');
    assert.match(out.additionalContext, /^coord: you are gemini#[0-9a-f]{6} on board /);
  });

  test('the stop hook blocks once with a task handed to the agent, then never again for it', async () => {
    const stop = () =>
      hook(['hook', 'stop', '--client', 'claude'], { hook_event_name: 'Stop', stop_hook_active: false });
    assert.equal((await stop()).stdout, '', 'nothing for it yet');
    const handed = (await (await post({ title: 'review my change', kind: 'review', for: me })).json()) as any;
    const first = await stop();
    const answer = JSON.parse(first.stdout);
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, new RegExp(`#${handed.task.id} review from poster: review my change`));
    assert.equal((await stop()).stdout, '', 'the same task never blocks twice');
    await post({ title: 'second one', for: me });
    const active = await hook(['hook', 'stop', '--client', 'claude'], { stop_hook_active: true });
    assert.equal(active.stdout, '', 'a client already continuing for a stop hook is let go');
    assert.match(JSON.parse((await stop()).stdout).reason, /second one/);
  });
});
