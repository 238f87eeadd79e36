import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function createContract(make: MakeStore): void {
  describe('creating tasks', () => {
    const board = freshBoard(make);

    test('a new task is queued with the documented defaults and created: true', async () => {
      const b = board();
      const now = new Date(b.clock.now()).toISOString();
      const out = await b.call(op.createTask, { title: 'fix the flaky test', agent: 'alice' });
      assert.equal(out.created, true);
      const { id, ...rest } = out.task;
      assert.match(id, /^[A-Za-z0-9_-]{1,12}$/);
      assert.deepEqual(rest, {
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
        created_at: now,
        updated_at: now,
        expires_at: new Date(b.clock.now() + 86_400 * S).toISOString(),
        idempotency_key: null,
        change: null,
        blocked_by: [],
        blocked: [],
        ready: true,
        parent: null,
      });
      assert.deepEqual(await b.show(id), out.task);
    });

    test('a task keeps every field it was posted with', async () => {
      const b = board();
      const task = await b.post('alice', {
        title: 'review #12',
        body: 'see the diff',
        kind: 'review',
        priority: -3,
        labels: ['ui', 'urgent'],
        for: 'bob',
        ttl_s: 60,
        idempotency_key: 'k-1',
        board: 'repo-a',
      });
      assert.equal(task.board, 'repo-a');
      assert.equal(task.kind, 'review');
      assert.equal(task.body, 'see the diff');
      assert.equal(task.priority, -3);
      assert.deepEqual(task.labels, ['ui', 'urgent']);
      assert.equal(task.for, 'bob');
      assert.equal(task.idempotency_key, 'k-1');
      assert.equal(task.expires_at, new Date(b.clock.now() + 60 * S).toISOString());
    });

    test('posting again with the same idempotency key and payload returns the same task with created: false and no new event', async () => {
      const b = board();
      const input = { title: 'deploy', labels: ['ops'], idempotency_key: 'deploy-42', agent: 'alice' };
      const first = await b.call(op.createTask, input);
      b.clock.advance(5 * S);
      const again = await b.call(op.createTask, input);
      const third = await b.call(op.createTask, input);
      assert.equal(first.created, true);
      assert.deepEqual(again, { task: first.task, created: false });
      assert.deepEqual(third, { task: first.task, created: false });
      assert.deepEqual(
        (await b.events()).map((e) => e.type),
        ['task.created'],
      );
    });

    test('the same idempotency key with another payload fails with idempotency_conflict naming the existing task', async () => {
      const b = board();
      const first = await b.post('alice', { title: 'deploy', idempotency_key: 'deploy-42' });
      for (const other of [
        { title: 'deploy now' },
        { title: 'deploy', priority: 1 },
        { title: 'deploy', for: 'bob' },
      ]) {
        const err = await b.fail(op.createTask, { ...other, idempotency_key: 'deploy-42', agent: 'alice' });
        assert.equal(err.code, 'idempotency_conflict');
        assert.equal(err.details.task_id, first.id);
      }
      assert.equal((await b.call(op.listTasks, {})).tasks.length, 1);
    });

    test('the same idempotency key on another board names an independent task', async () => {
      const b = board();
      const a = await b.call(op.createTask, { title: 'x', idempotency_key: 'k', board: 'one', agent: 'alice' });
      const c = await b.call(op.createTask, { title: 'x', idempotency_key: 'k', board: 'two', agent: 'alice' });
      const d = await b.call(op.createTask, {
        title: 'other payload',
        idempotency_key: 'k',
        board: 'three',
        agent: 'x',
      });
      assert.equal(a.created && c.created && d.created, true);
      assert.equal(new Set([a.task.id, c.task.id, d.task.id]).size, 3);
    });
  });
}
