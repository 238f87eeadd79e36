import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoordEvent, Task } from '../../src/core/model.js';
import { newsFor } from '../../src/server/mcp/inbox-push.js';

const task = (over: Partial<Task>): Task => ({
  id: 'k3m9x2qa',
  board: 'default',
  kind: 'task',
  title: 'expose search',
  body: '',
  priority: 0,
  labels: [],
  for: null,
  created_by: 'planner',
  state: 'queued',
  claimed_by: null,
  lease_until: null,
  attempts: 0,
  result_status: null,
  result: null,
  created_at: '2026-01-31T00:00:00.000Z',
  updated_at: '2026-01-31T00:00:00.000Z',
  expires_at: '2026-02-01T00:00:00.000Z',
  idempotency_key: null,
  change: null,
  blocked_by: ['a1b2c3d4'],
  blocked: [],
  ready: true,
  parent: null,
  ...over,
});
const event = (type: CoordEvent['type']): CoordEvent => ({
  seq: 1,
  type,
  board: 'default',
  task_id: 'k3m9x2qa',
  lock_id: null,
  agent: 'worker',
  at: '2026-01-31T00:00:00.000Z',
  data: {},
});

test('a blocked task is not announced when posted, but when it becomes ready (SPEC §11)', () => {
  const waiting = task({ ready: false, blocked: [{ id: 'a1b2c3d4', state: 'queued' }] });
  assert.equal(newsFor(event('task.created'), waiting, 'me'), null);
  assert.match(newsFor(event('task.ready'), task({}), 'me') ?? '', /^#k3m9x2qa is ready .* claim_task/);
  assert.equal(newsFor(event('task.ready'), task({ for: 'someone-else' }), 'me'), null);
  assert.equal(newsFor(event('task.ready'), task({ state: 'claimed', ready: false }), 'me'), null);
});
