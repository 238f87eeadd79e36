import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op } from './board.js';

/** Everything `agent` could learn about `id` through show, claim, list, inbox and claim-next. */
async function sees(b: Board, id: string, agent: string): Promise<Record<string, boolean>> {
  const show = await b.call(op.showTask, { task_id: id, agent }).then(
    () => true,
    (e: { code: string }) => (e.code === 'not_found' ? false : Promise.reject(e)),
  );
  const listed = (await b.call(op.listTasks, { agent })).tasks.some((t) => t.id === id);
  const inbox = await b.call(op.inbox, { agent });
  const inInbox = [...inbox.tasks, ...inbox.claims.map((c) => c.task)].some((t) => t.id === id);
  return { show, listed, inInbox };
}

export function privateContract(make: MakeStore): void {
  describe('private tasks and handoff', () => {
    const board = freshBoard(make);

    test('a task posted for an agent is not_found to everyone else for show, claim, cancel, list and inbox', async () => {
      const b = board();
      const task = await b.post('alice', { for: 'bob' });
      assert.deepEqual(await sees(b, task.id, 'mallory'), { show: false, listed: false, inInbox: false });
      for (const [o, input] of [
        [op.claimTask, { task_id: task.id, agent: 'mallory' }],
        [op.cancelTask, { task_id: task.id, agent: 'mallory' }],
      ] as const) {
        const err = await b.fail(o, input);
        assert.equal(err.code, 'not_found');
        // Exactly as if it did not exist: same message as for an unknown id.
        assert.equal(
          err.message.replace(task.id, 'ID'),
          (await b.fail(o, { ...input, task_id: 'nosuch' })).message.replace('nosuch', 'ID'),
        );
      }
      assert.equal(await b.call(op.claimNext, { agent: 'mallory' }), null);
      assert.equal((await b.show(task.id)).state, 'queued', 'nothing happened to it');
    });

    test('the target of a private task sees it and claims it', async () => {
      const b = board();
      const task = await b.post('alice', { for: 'bob' });
      assert.deepEqual(await sees(b, task.id, 'bob'), { show: true, listed: true, inInbox: true });
      const grant = await b.claim(task.id, 'bob');
      assert.equal(grant.task.claimed_by, 'bob');
    });

    test('claim-next gives a private task to its target only', async () => {
      const b = board();
      const task = await b.post('alice', { for: 'bob' });
      assert.equal(await b.call(op.claimNext, { agent: 'carol' }), null);
      assert.equal((await b.call(op.claimNext, { agent: 'bob' }))?.task.id, task.id);
    });

    test('the author of a private task may see it but not claim it', async () => {
      const b = board();
      const task = await b.post('alice', { for: 'bob' });
      assert.equal((await sees(b, task.id, 'alice')).show, true);
      assert.equal((await b.fail(op.claimTask, { task_id: task.id, agent: 'alice' })).code, 'not_claimable');
    });

    test('release with `to` requeues the task for that agent only, in the same step that ends the claim', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const { task: handed } = await b.call(op.releaseTask, {
        task_id: task.id,
        claim_id: grant.claim_id,
        to: 'carol',
      });
      assert.equal(handed.state, 'queued');
      assert.equal(handed.for, 'carol');
      assert.equal(handed.claimed_by, null);
      assert.equal(handed.lease_until, null);
      assert.equal((await b.fail(op.claimTask, { task_id: task.id, agent: 'dave' })).code, 'not_found');
      // Who handed it over still sees it (issue 26), like its author: it may not claim it (only carol may).
      assert.equal((await b.fail(op.claimTask, { task_id: task.id, agent: 'bob' })).code, 'not_claimable');
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      assert.equal(await b.call(op.claimNext, { agent: 'dave' }), null);
      const next = await b.call(op.claimNext, { agent: 'carol' });
      assert.equal(next?.task.id, task.id);
      assert.equal(next?.fence, 2);
    });

    test('release without `to` puts the task back in the queue for everyone', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const { task: back } = await b.call(op.releaseTask, { task_id: task.id, claim_id: grant.claim_id });
      assert.equal(back.state, 'queued');
      assert.equal(back.for, null);
      assert.equal(back.attempts, 1);
      assert.equal((await b.claim(task.id, 'dave')).fence, 2);
    });
  });
}
