/** SPEC §19: the attention list as a pure function — what each fact becomes, what hides it, the order. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AttentionFacts, attentionList } from '../../src/core/attention/attention.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const ago = (min: number) => new Date(NOW - min * 60_000).toISOString();
const empty: AttentionFacts = {
  now: NOW,
  idle_after_ms: 15 * 60_000,
  integrations: [],
  failed: [],
  claims: [],
  holds: [],
};
const stopped = (state: 'awaiting_review' | 'conflict' | 'check_failed' | 'blocked', extra = {}) => ({
  task_id: `t-${state}`,
  title: `work ${state}`,
  agent: 'alice',
  state,
  reason: null,
  since: ago(5),
  target: 'main',
  ...extra,
});

describe('attentionList', () => {
  test('nothing stopped, failed, idle or waiting: nothing needs a person', () => {
    assert.deepEqual(attentionList(empty), []);
  });

  test('each kind of fact becomes one item with its id, since and the command that resolves it', () => {
    const items = attentionList({
      ...empty,
      integrations: [
        stopped('awaiting_review'),
        stopped('conflict', {
          reason: 'src/a.ts',
          followup: { id: 'f1', state: 'queued', claimed_by: null, lease_until: null },
        }),
        stopped('check_failed'),
        stopped('blocked', { reason: 'main is checked out in /r with uncommitted changes: a.ts' }),
        stopped('blocked', { task_id: 't-gone', reason: 'branch x no longer exists' }),
      ],
      failed: [{ task_id: 't-f', title: 'broken', agent: 'bob', since: ago(60), last_note: 'tests fail' }],
      claims: [
        { task_id: 't-idle', title: 'slow', agent: 'carol', last_seen: ago(20) },
        { task_id: 't-busy', title: 'fast', agent: 'dave', last_seen: ago(1) },
      ],
      holds: [
        { lock_id: 'L1', agent: 'erin', resources: ['src/b.ts'], since: ago(25 * 60), task_id: 't-h', worktree: '/w' },
        { lock_id: 'L2', agent: 'erin', resources: ['src/c.ts'], since: ago(60), task_id: null, worktree: null },
      ],
      agents: [
        { agent: 'claude#1', state: 'waiting', reason: 'Claude needs your permission to use Bash', since: ago(2) },
        { agent: 'claude#2', state: 'working', since: ago(2) },
      ],
      paused: [{ task_id: 't-p', title: 'limit', agent: 'codex#1', until: '2026-12-01T15:00:00Z', since: ago(3) }],
      budget: { what: 'budget-usd 5 spent', since: ago(4) },
    });
    assert.deepEqual(
      items.map((i) => [i.id, i.command]),
      [
        ['agent_waiting:claude#1', 'answer it in its session'],
        ['budget_spent:run', 'coord run with a larger --budget-tokens / --budget-usd'],
        ['target_dirty:t-blocked', 'coord integrate --retry t-blocked --once'],
        ['review:t-awaiting_review', 'coord approve t-awaiting_review'],
        ['conflict:t-conflict', 'coord claim f1 --agent alice'],
        ['check_failed:t-check_failed', 'coord integrate --retry t-check_failed --once'],
        ['integration_blocked:t-gone', 'coord integrate --retry t-gone --once'],
        ['task_failed:t-f', "coord note t-f 'seen: <what you did about it>'"],
        ['task_paused:t-p', 'wait until 2026-12-01T15:00:00Z, or coord cancel t-p'],
        ['agent_idle:carol:t-idle', 'coord cancel t-idle'],
        ['hold_old:L1', 'coord unlock L1'],
      ],
    );
    const waiting = items[0];
    assert.equal(waiting?.why, 'Claude needs your permission to use Bash');
    assert.equal(waiting?.since, ago(2));
    assert.equal(items.find((i) => i.kind === 'agent_idle')?.since, ago(20));
    assert.match(items.find((i) => i.kind === 'hold_old')?.what ?? '', /src\/b\.ts held until merged in \/w/);
    assert.match(items.find((i) => i.kind === 'task_failed')?.why ?? '', /tests fail/);
  });

  test('a conflict whose follow-up a live claim holds waits on its agent, not on a person', () => {
    const f = (lease_until: string) => ({ id: 'f1', state: 'claimed', claimed_by: 'alice', lease_until });
    const held = attentionList({ ...empty, integrations: [stopped('conflict', { followup: f(ago(-5)) })] });
    assert.deepEqual(held, []);
    const lapsed = attentionList({ ...empty, integrations: [stopped('conflict', { followup: f(ago(1)) })] });
    assert.equal(lapsed[0]?.id, 'conflict:t-conflict');
  });

  test('a claim counts as idle only past --idle-after', () => {
    const claims = [{ task_id: 't', title: 'x', agent: 'a', last_seen: ago(3) }];
    assert.deepEqual(attentionList({ ...empty, claims }), []);
    assert.equal(attentionList({ ...empty, claims, idle_after_ms: 60_000 }).length, 1);
  });

  test('the same kind is listed oldest first', () => {
    const items = attentionList({
      ...empty,
      failed: [
        { task_id: 'b', title: 'b', agent: null, since: ago(1) },
        { task_id: 'a', title: 'a', agent: null, since: ago(9) },
      ],
    });
    assert.deepEqual(
      items.map((i) => i.task_id),
      ['a', 'b'],
    );
  });
});
