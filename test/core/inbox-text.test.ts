import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { claimLine, inboxText, shortDuration, taskLine } from '../../src/core/messages/inbox-text.js';
import type { Task } from '../../src/core/model.js';
import type { InboxOutput } from '../../src/core/output-schemas.js';

const NOW = Date.UTC(2026, 0, 31);
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

const task = (over: Partial<Task> = {}): Task => ({
  id: 'k3m9x2qa',
  board: 'default',
  kind: 'task',
  title: 'fix the flaky test',
  body: '',
  priority: 0,
  labels: [],
  for: null,
  created_by: 'alice',
  state: 'queued',
  claimed_by: null,
  lease_until: null,
  attempts: 0,
  result_status: null,
  result: null,
  created_at: new Date(NOW - 3 * 60_000).toISOString(),
  updated_at: new Date(NOW).toISOString(),
  expires_at: new Date(NOW + 86_400_000).toISOString(),
  idempotency_key: null,
  change: null,
  blocked_by: [],
  blocked: [],
  ready: true,
  parent: null,
  ...over,
});

const inbox = (over: Partial<InboxOutput> = {}): InboxOutput => ({
  agent: 'me',
  board: 'default',
  cursor: 42,
  claims: [],
  tasks: [],
  more: 0,
  gone: [],
  blocked: 0,
  ...over,
});

/** The widest a line can get: 64-char agent names, a long kind, extreme priority, the oldest age a queued task can have. */
const WIDE = {
  kind: 'k'.repeat(32),
  priority: -1000,
  created_by: `claude-code#${'x'.repeat(52)}`,
  for: `cursor#${'y'.repeat(57)}`,
  created_at: new Date(NOW - 30 * 86_400_000).toISOString(),
};

describe('inbox text budget (SPEC §6)', () => {
  test('an empty inbox is one line of at most 64 bytes, even with a huge cursor', () => {
    for (const since of [undefined, 7]) {
      const text = inboxText(inbox({ cursor: Number.MAX_SAFE_INTEGER }), NOW, since);
      assert.equal(text.includes('\n'), false);
      assert.ok(bytes(text) <= 64, `${bytes(text)} bytes: ${text}`);
    }
  });

  test('a task line with an 80-char title, a 64-char author, a long kind and a private marker is at most 140 bytes', () => {
    for (const title of ['t'.repeat(80), 'word '.repeat(100)]) {
      const line = taskLine(task({ ...WIDE, title }), WIDE.for, NOW);
      assert.ok(bytes(line) <= 140, `${bytes(line)} bytes: ${line}`);
      assert.ok(line.includes(title.slice(0, 60).replace(/\s+/g, ' ')));
    }
  });

  test('a non-ASCII title is cut until the line fits 140 bytes', () => {
    for (const title of ['é'.repeat(80), '修复登录重定向循环'.repeat(10), '🚀'.repeat(80)]) {
      const line = taskLine(task({ ...WIDE, title }), WIDE.for, NOW);
      assert.ok(bytes(line) <= 140, `${bytes(line)} bytes: ${line}`);
      assert.match(line, /…$/);
    }
  });

  test('a line of my own claim with an 80-char title is at most 140 bytes', () => {
    const lease = new Date(NOW + 23 * 3600_000 + 59 * 60_000).toISOString();
    const line = claimLine(task({ ...WIDE, title: 'c'.repeat(80), lease_until: lease }), NOW);
    assert.ok(bytes(line) <= 140, `${bytes(line)} bytes: ${line}`);
  });

  test('an 80-char title is shown whole; a longer one is cut to 80 chars ending in an ellipsis', () => {
    const whole = 'a'.repeat(80);
    assert.ok(taskLine(task({ title: whole }), 'me', NOW).endsWith(`: ${whole}`));
    const cut = taskLine(task({ title: 'b'.repeat(81) }), 'me', NOW);
    assert.ok(cut.endsWith(`: ${'b'.repeat(79)}…`));
  });

  test('a multi-line title is folded onto the one task line', () => {
    assert.equal(taskLine(task({ title: 'one\ntwo\t three' }), 'me', NOW).includes('\n'), false);
  });
});

describe('inbox text content', () => {
  test('a task line shows id, kind, priority, age, author and title', () => {
    assert.equal(
      taskLine(task({ priority: 2, kind: 'bug' }), 'me', NOW),
      '#k3m9x2qa bug p2 3m alice: fix the flaky test',
    );
  });

  test('a task addressed to the reader is marked as such', () => {
    assert.match(taskLine(task({ for: 'me' }), 'me', NOW), / alice>you: /);
    assert.doesNotMatch(taskLine(task({ for: 'me' }), 'other', NOW), />you/);
  });

  test('my own claim shows the lease left', () => {
    const lease = new Date(NOW + 4 * 60_000 + 30_000).toISOString();
    assert.equal(
      claimLine(task({ state: 'claimed', lease_until: lease }), NOW),
      '* #k3m9x2qa task p0 yours, lease 4m30s: fix the flaky test',
    );
  });

  test('claims come first, then tasks, the rest as a count, then what left the view', () => {
    const text = inboxText(
      inbox({
        claims: [{ task: task({ id: 'mine0001', state: 'claimed' }), lease_until: '' }],
        tasks: [task({ id: 'open0001' }), task({ id: 'open0002' })],
        more: 5,
        gone: [{ id: 'gone0001', state: 'claimed', claimed_by: 'bob' }],
      }),
      NOW,
      undefined,
    );
    const lines = text.split('\n');
    assert.equal(lines[0], '1 claimed by you, 7 to claim · cursor 42');
    assert.deepEqual(
      lines.slice(1).map((l) => l.match(/#(\w+)/)?.[1] ?? l),
      ['mine0001', 'open0001', 'open0002', '+5 more (coord ls)', 'gone0001'],
    );
    assert.equal(lines.at(-1), '- #gone0001 claimed by bob');
  });

  test('with since and nothing changed it says so in one line', () => {
    assert.equal(inboxText(inbox(), NOW, 41), 'no changes · cursor 42');
    assert.equal(inboxText(inbox(), NOW, undefined), 'inbox empty · cursor 42');
  });

  test('durations use the coarsest unit that keeps two digits', () => {
    assert.deepEqual(
      [0, 59_000, 60_000, 90_000, 3600_000, 5400_000, 86_400_000, 3 * 86_400_000, -5].map(shortDuration),
      ['0s', '59s', '1m', '1m30s', '1h', '1h30m', '1d', '3d', '0s'],
    );
  });
});
