import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function lazyExpiryContract(make: MakeStore): void {
  describe('lazy expiry', () => {
    const board = freshBoard(make);

    test('polling with nothing due (inbox, inbox since, claim-next, show, list) appends no event and changes no updated_at', async () => {
      const b = board();
      const held = await b.post('alice', { ttl_s: 600 });
      await b.claim(held.id, 'bob', 300);
      await b.post('alice', { for: 'carol' });
      b.clock.advance(299 * S);
      const events = await b.events();
      const before = await b.snapshot();

      const { cursor } = await b.call(op.inbox, { agent: 'dave' });
      await b.call(op.inbox, { agent: 'bob' });
      await b.call(op.inbox, { agent: 'dave', since: cursor });
      assert.equal(await b.call(op.claimNext, { agent: 'dave' }), null);
      assert.equal(await b.call(op.claimNext, { agent: 'bob', kinds: ['bug'] }), null);
      await b.call(op.showTask, { task_id: held.id });
      await b.call(op.listTasks, { agent: 'dave' });
      assert.equal(await b.store.sweep(), 0);

      assert.deepEqual(await b.events(), events);
      assert.deepEqual(await b.snapshot(), before);
    });

    test('the first read after a lease lapses moves the task and records it once', async () => {
      const b = board();
      const task = await b.post('alice');
      await b.claim(task.id, 'bob', 30);
      b.clock.advance(30 * S);
      const view = await b.call(op.inbox, { agent: 'dave' });
      assert.deepEqual(
        view.tasks.map((t) => [t.id, t.state, t.updated_at]),
        [[task.id, 'queued', new Date(b.clock.now()).toISOString()]],
      );
      await b.call(op.inbox, { agent: 'dave' });
      assert.deepEqual(
        (await b.events()).map((e) => e.type),
        ['task.created', 'task.claimed', 'task.requeued'],
      );
    });

    test('the background sweep moves due leases and ttls and reports how many rows moved', async () => {
      const b = board();
      const a = await b.post('alice', { ttl_s: 20 });
      const c = await b.post('alice');
      await b.claim(c.id, 'bob', 10);
      b.clock.advance(20 * S);
      assert.equal(await b.store.sweep(), 2);
      assert.equal(await b.store.sweep(), 0);
      assert.equal((await b.show(a.id)).state, 'expired');
      assert.equal((await b.show(c.id)).state, 'queued');
    });
  });
}
