import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function claimContract(make: MakeStore): void {
  describe('claiming a task by id', () => {
    const board = freshBoard(make);

    test('of five agents claiming one task at once, exactly one wins and every loser is told the holder and its lease_until', async () => {
      const b = board();
      const task = await b.post('alice');
      const agents = ['a1', 'a2', 'a3', 'a4', 'a5'];
      const settled = await Promise.allSettled(agents.map((agent) => b.claim(task.id, agent, 60)));
      const winners = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      assert.equal(winners.length, 1);
      const win = winners[0]!;
      assert.equal(win.reclaimed, false);
      assert.equal(win.fence, 1);
      assert.equal(win.lease_until, new Date(b.clock.now() + 60 * S).toISOString());
      assert.equal(win.task.state, 'claimed');
      assert.ok(agents.includes(win.task.claimed_by ?? ''));
      assert.ok(win.claim_id.length >= 16, 'claim_id is an unguessable token');
      assert.equal(JSON.stringify(win.task).includes(win.claim_id), false, 'the task JSON never carries the claim_id');
      for (const s of settled) {
        if (s.status === 'fulfilled') continue;
        const err = s.reason as { code: string; details: Record<string, unknown> };
        assert.equal(err.code, 'claimed');
        assert.equal(err.details.holder, win.task.claimed_by);
        assert.equal(err.details.lease_until, win.lease_until);
      }
      assert.deepEqual(
        (await b.events()).filter((e) => e.type === 'task.claimed').map((e) => e.agent),
        [win.task.claimed_by],
      );
    });

    test('the holder claiming again gets the same claim_id, its lease unchanged and reclaimed: true', async () => {
      const b = board();
      const task = await b.post('alice');
      const first = await b.claim(task.id, 'bob', 60);
      b.clock.advance(10 * S);
      const again = await b.claim(task.id, 'bob', 600);
      assert.equal(again.reclaimed, true);
      assert.equal(again.claim_id, first.claim_id);
      assert.equal(again.lease_until, first.lease_until);
      assert.equal(again.fence, 1);
      assert.equal(again.task.attempts, 1);
      assert.equal((await b.events()).filter((e) => e.type === 'task.claimed').length, 1);
    });

    test('a cancelled task answers cancelled, an expired one expired, a completed or failed one not_claimable', async () => {
      const b = board();
      const cancelled = await b.post('alice');
      await b.call(op.cancelTask, { task_id: cancelled.id, agent: 'alice' });
      assert.equal((await b.fail(op.claimTask, { task_id: cancelled.id, agent: 'bob' })).code, 'cancelled');

      const expiring = await b.post('alice', { ttl_s: 5 });
      b.clock.advance(5 * S);
      assert.equal((await b.fail(op.claimTask, { task_id: expiring.id, agent: 'bob' })).code, 'expired');

      for (const status of ['completed', 'failed'] as const) {
        const done = await b.post('alice');
        const grant = await b.claim(done.id, 'bob');
        await b.call(op.submitResult, { task_id: done.id, claim_id: grant.claim_id, status, result: null });
        for (const agent of ['bob', 'carol']) {
          const err = await b.fail(op.claimTask, { task_id: done.id, agent });
          assert.equal(err.code, 'not_claimable');
          assert.equal(err.details.state, status);
        }
      }
    });

    test('an unknown task id answers not_found', async () => {
      const b = board();
      assert.equal((await b.fail(op.claimTask, { task_id: 'nosuch', agent: 'bob' })).code, 'not_found');
      assert.equal((await b.fail(op.showTask, { task_id: 'nosuch' })).code, 'not_found');
    });

    test('the lease is the claimed lease_s, 300 s by default', async () => {
      const b = board();
      const t1 = await b.post('alice');
      const t2 = await b.post('alice');
      const now = b.clock.now();
      assert.equal((await b.claim(t1.id, 'bob')).lease_until, new Date(now + 300 * S).toISOString());
      assert.equal((await b.claim(t2.id, 'bob', 1)).lease_until, new Date(now + 1 * S).toISOString());
    });
  });
}
