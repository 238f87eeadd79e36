import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { waitFor } from '../../support/wait-for.js';
import { freshBoard, op, S } from './board.js';

export function eventContract(make: MakeStore): void {
  describe('events', () => {
    const board = freshBoard(make);

    test('every change appends one event, in order, with a growing seq; reads, heartbeats and replays append none', async () => {
      const b = board();
      const t1 = await b.post('alice');
      const c1 = await b.claim(t1.id, 'bob');
      await b.call(op.heartbeat, { task_id: t1.id, claim_id: c1.claim_id });
      await b.claim(t1.id, 'bob');
      await b.call(op.releaseTask, { task_id: t1.id, claim_id: c1.claim_id });
      const c2 = await b.claim(t1.id, 'carol');
      const submit = { task_id: t1.id, claim_id: c2.claim_id, status: 'completed', result: 1 } as const;
      await b.call(op.submitResult, submit);
      await b.call(op.submitResult, submit);

      const t2 = await b.post('alice');
      await b.claim(t2.id, 'bob', 10);
      b.clock.advance(10 * S);
      await b.call(op.inbox, { agent: 'dave' });
      const c3 = await b.claim(t2.id, 'bob');
      await b.call(op.submitResult, { task_id: t2.id, claim_id: c3.claim_id, status: 'failed' });

      const t3 = await b.post('alice');
      await b.call(op.cancelTask, { task_id: t3.id, agent: 'alice' });
      await b.call(op.cancelTask, { task_id: t3.id, agent: 'alice' });
      const t4 = await b.post('alice', { ttl_s: 1 });
      b.clock.advance(S);
      await b.call(op.listTasks, {});

      const events = await b.events();
      assert.deepEqual(
        events.map((e) => [e.type, e.task_id, e.agent]),
        [
          ['task.created', t1.id, 'alice'],
          ['task.claimed', t1.id, 'bob'],
          ['task.requeued', t1.id, 'bob'],
          ['task.claimed', t1.id, 'carol'],
          ['task.completed', t1.id, 'carol'],
          ['task.created', t2.id, 'alice'],
          ['task.claimed', t2.id, 'bob'],
          ['task.requeued', t2.id, 'bob'],
          ['task.claimed', t2.id, 'bob'],
          ['task.failed', t2.id, 'bob'],
          ['task.created', t3.id, 'alice'],
          ['task.cancelled', t3.id, 'alice'],
          ['task.created', t4.id, 'alice'],
          ['task.expired', t4.id, null],
        ],
      );
      for (let i = 1; i < events.length; i++) assert.ok(events[i]!.seq > events[i - 1]!.seq, 'seq grows');
    });

    test('listing events since a seq returns only the later ones, and a board filter keeps to that board', async () => {
      const b = board();
      await b.post('alice', { board: 'one' });
      const { next_since } = await b.call(op.listEvents, {});
      const t2 = await b.post('alice', { board: 'two' });
      const t3 = await b.post('alice', { board: 'one' });
      const later = await b.call(op.listEvents, { since: next_since });
      assert.deepEqual(
        later.events.map((e) => e.task_id),
        [t2.id, t3.id],
      );
      assert.equal(later.next_since, later.events.at(-1)?.seq);
      const one = await b.call(op.listEvents, { board: 'one', since: next_since });
      assert.deepEqual(
        one.events.map((e) => e.task_id),
        [t3.id],
      );
      const none = await b.call(op.listEvents, { since: later.next_since });
      assert.deepEqual(none, { events: [], next_since: later.next_since });
    });

    test("a task filter gives one task's history, and tail gives the newest events, still oldest first", async () => {
      const b = board();
      const t1 = await b.post('alice');
      const t2 = await b.post('alice');
      await b.claim(t1.id, 'bob');
      await b.call(op.cancelTask, { task_id: t2.id, agent: 'alice' });
      await b.call(op.cancelTask, { task_id: t1.id, agent: 'alice' });
      const history = await b.call(op.listEvents, { task: t1.id });
      assert.deepEqual(
        history.events.map((e) => [e.type, e.task_id]),
        [
          ['task.created', t1.id],
          ['task.claimed', t1.id],
          ['task.cancelled', t1.id],
        ],
      );
      const all = (await b.call(op.listEvents, {})).events;
      const tail = await b.call(op.listEvents, { tail: true, limit: 2 });
      assert.deepEqual(
        tail.events.map((e) => e.seq),
        all.slice(-2).map((e) => e.seq),
      );
      assert.equal(tail.next_since, all.at(-1)?.seq);
      const lastOfT2 = await b.call(op.listEvents, { task: t2.id, tail: true, limit: 1 });
      assert.deepEqual(
        lastOfT2.events.map((e) => e.type),
        ['task.cancelled'],
      );
    });

    test('subscribers hear the events of each change after it is committed', async () => {
      const b = board();
      const heard: string[] = [];
      const stop = b.store.subscribe((events) => {
        for (const e of events) heard.push(e.type);
      });
      const t = await b.post('alice');
      await b.claim(t.id, 'bob');
      stop();
      await b.post('alice');
      assert.deepEqual(heard, ['task.created', 'task.claimed']);
    });

    test('a listener that throws neither fails the committed write nor keeps others from hearing it', async () => {
      const b = board();
      const heard: string[] = [];
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.message);
      process.on('warning', onWarning);
      const stopBad = b.store.subscribe(() => {
        throw new Error('listener bug');
      });
      const stopGood = b.store.subscribe((events) => {
        for (const e of events) heard.push(e.type);
      });
      try {
        const t = await b.post('alice');
        assert.equal((await b.store.getTask(t.id))?.state, 'queued');
        await waitFor(() => heard.includes('task.created') && warnings.some((w) => w.includes('listener bug')));
      } finally {
        stopBad();
        stopGood();
        process.off('warning', onWarning);
      }
    });
  });
}
