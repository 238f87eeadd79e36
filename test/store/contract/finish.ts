import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function finishContract(make: MakeStore): void {
  describe('submit, cancel and ttl', () => {
    const board = freshBoard(make);

    test('submitting the same result four times answers replayed: true after the first; a fifth, different result fails with result_mismatch and never overwrites', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      b.clock.advance(S);
      const input = {
        task_id: task.id,
        claim_id: grant.claim_id,
        status: 'completed',
        result: { pr: 7, files: ['a', 'b'] },
      };
      const answers = [];
      for (let i = 0; i < 4; i++) {
        answers.push(await b.call(op.submitResult, input));
        b.clock.advance(S);
      }
      assert.deepEqual(
        answers.map((a) => a.replayed),
        [false, true, true, true],
      );
      for (const a of answers) assert.deepEqual(a.task, answers[0]!.task);
      const done = answers[0]!.task;
      assert.equal(done.state, 'completed');
      assert.equal(done.result_status, 'completed');
      assert.deepEqual(done.result, { pr: 7, files: ['a', 'b'] });
      assert.equal(done.lease_until, null);
      // Key order is not part of the result: canonical JSON hashes them equally.
      const reordered = await b.call(op.submitResult, { ...input, result: { files: ['a', 'b'], pr: 7 } });
      assert.equal(reordered.replayed, true);
      assert.equal((await b.fail(op.submitResult, { ...input, result: { pr: 8 } })).code, 'result_mismatch');
      assert.equal((await b.fail(op.submitResult, { ...input, status: 'failed' })).code, 'result_mismatch');
      const { integration, ...shown } = done;
      assert.deepEqual(integration, { state: 'none' });
      assert.deepEqual(await b.show(task.id), shown);
      assert.equal((await b.events()).filter((e) => e.type === 'task.completed').length, 1);
    });

    test('a submit with unless_tree whose live claim recorded a work tree writes nothing and names that tree; a tree of an earlier claim, or none, does not hold it back', async () => {
      const b = board();
      const task = await b.post('alice');
      const claim = (claim_id: string) =>
        b.store.claimTask({ task_id: task.id, agent: 'bob', lease_ms: 60 * S, claim_id, session_id: null, files: [] });
      const done = (claim_id: string) => ({
        task_id: task.id,
        claim_id,
        status: 'completed' as const,
        result: null,
        result_hash: 'r',
        unless_tree: true,
      });
      assert.equal((await claim('c-1')).ok, true);
      await b.store.recordClaimTree(task.id, { claim_id: 'c-1', worktree: '/repo/wt-a', head: 'abc', dirty: ['x.ts'] });
      const before = (await b.events()).length;
      assert.deepEqual(await b.store.submit(done('c-1')), {
        ok: false,
        reason: 'work_tree',
        tree: { claim_id: 'c-1', worktree: '/repo/wt-a', head: 'abc', dirty: ['x.ts'] },
      });
      assert.equal((await b.show(task.id)).state, 'claimed', 'nothing written');
      assert.equal((await b.events()).length, before, 'no event');
      // A stale claim is explained as ever, tree or not.
      assert.equal(((await b.store.submit(done('c-0'))) as { reason: string }).reason, 'stale_claim');
      // The claim that recorded the tree ends; the next claim recorded none: its submit goes on.
      assert.equal((await b.store.release({ task_id: task.id, claim_id: 'c-1', to: null })).ok, true);
      assert.equal((await claim('c-2')).ok, true);
      const out = await b.store.submit(done('c-2'));
      assert.equal(out.ok && out.task.state, 'completed');
      assert.equal(out.ok && out.ended_locks, false);
    });

    test("a submit reports ended_locks: true when it ended its claim's work-tree lock (it waits for git), false when the claim's lock had no work tree", async () => {
      const b = board();
      const results = [];
      for (const worktree of ['/repo/wt-a', null]) {
        const task = await b.post('alice');
        const claim_id = `c-${worktree ? 'tree' : 'plain'}`;
        const files = [worktree ? 'src/a.ts' : 'src/b.ts'];
        const grant = await b.store.claimTask({
          task_id: task.id,
          agent: 'bob',
          lease_ms: 60 * S,
          claim_id,
          session_id: null,
          files,
          worktree,
        });
        assert.equal(grant.ok, true);
        const out = await b.store.submit({
          task_id: task.id,
          claim_id,
          status: 'completed',
          result: null,
          result_hash: 'r',
        });
        assert.ok(out.ok);
        results.push(out.ended_locks);
      }
      assert.deepEqual(results, [true, false]);
      assert.deepEqual(
        (await b.store.endedLocks()).map((l) => l.resources),
        [['src/a.ts']],
      );
    });

    test('a failed submit is terminal with result_status failed', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const out = await b.call(op.submitResult, {
        task_id: task.id,
        claim_id: grant.claim_id,
        status: 'failed',
        result: 'tests do not build',
      });
      assert.equal(out.replayed, false);
      assert.equal(out.task.state, 'failed');
      assert.equal(out.task.result_status, 'failed');
      assert.equal(out.task.result, 'tests do not build');
      assert.equal(out.task.claimed_by, 'bob');
    });

    test('after a submit the finished claim can no longer heartbeat or release: not_claimed', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      await b.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed' });
      assert.equal((await b.fail(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id })).code, 'not_claimed');
      assert.equal((await b.fail(op.releaseTask, { task_id: task.id, claim_id: grant.claim_id })).code, 'not_claimed');
    });

    test('a submit after its lease lapsed is refused even when nobody claimed the task since', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob', 10);
      b.clock.advance(10 * S);
      const err = await b.fail(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed' });
      assert.equal(err.code, 'lease_expired');
      assert.equal((await b.show(task.id)).state, 'queued');
    });

    test('cancelling a claimed task fences its holder: a later heartbeat or submit answers cancelled', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const { task: cancelled } = await b.call(op.cancelTask, { task_id: task.id, agent: 'alice', reason: 'dup' });
      assert.equal(cancelled.state, 'cancelled');
      assert.equal(cancelled.lease_until, null);
      const fenced = { task_id: task.id, claim_id: grant.claim_id };
      assert.equal((await b.fail(op.submitResult, { ...fenced, status: 'completed' })).code, 'cancelled');
      assert.equal((await b.fail(op.heartbeat, fenced)).code, 'cancelled');
      assert.equal((await b.fail(op.releaseTask, fenced)).code, 'cancelled');
      assert.deepEqual(await b.show(task.id), cancelled);
    });

    test('cancelling twice is fine and answers the cancelled task unchanged, with one event', async () => {
      const b = board();
      const task = await b.post('alice');
      const first = await b.call(op.cancelTask, { task_id: task.id, agent: 'alice' });
      b.clock.advance(S);
      const second = await b.call(op.cancelTask, { task_id: task.id, agent: 'bob' });
      assert.deepEqual(second, first);
      assert.equal((await b.events()).filter((e) => e.type === 'task.cancelled').length, 1);
    });

    test('a finished task cannot be cancelled: not_claimable for completed, expired for expired', async () => {
      const b = board();
      const done = await b.post('alice');
      const grant = await b.claim(done.id, 'bob');
      await b.call(op.submitResult, { task_id: done.id, claim_id: grant.claim_id, status: 'completed' });
      assert.equal((await b.fail(op.cancelTask, { task_id: done.id, agent: 'alice' })).code, 'not_claimable');
      assert.equal((await b.show(done.id)).state, 'completed');
      const old = await b.post('alice', { ttl_s: 1 });
      b.clock.advance(S);
      assert.equal((await b.fail(op.cancelTask, { task_id: old.id, agent: 'alice' })).code, 'expired');
    });

    test('a queued task becomes expired when its ttl passes, and stays expired', async () => {
      const b = board();
      const task = await b.post('alice', { ttl_s: 60 });
      b.clock.advance(59_999);
      assert.equal((await b.show(task.id)).state, 'queued');
      b.clock.advance(1);
      const expired = await b.show(task.id);
      assert.equal(expired.state, 'expired');
      assert.equal((await b.fail(op.claimTask, { task_id: task.id, agent: 'bob' })).code, 'expired');
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      b.clock.advance(86_400 * S);
      assert.deepEqual(await b.show(task.id), expired);
    });

    test('a claimed task past its ttl becomes expired and its holder is answered expired', async () => {
      const b = board();
      const task = await b.post('alice', { ttl_s: 60 });
      const grant = await b.claim(task.id, 'bob', 300);
      b.clock.advance(30 * S);
      await b.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id });
      b.clock.advance(30 * S);
      const fenced = { task_id: task.id, claim_id: grant.claim_id };
      assert.equal((await b.fail(op.submitResult, { ...fenced, status: 'completed' })).code, 'expired');
      assert.equal((await b.fail(op.heartbeat, fenced)).code, 'expired');
      const expired = await b.show(task.id);
      assert.equal(expired.state, 'expired');
      assert.equal(expired.lease_until, null);
      assert.equal((await b.fail(op.claimTask, { task_id: task.id, agent: 'bob' })).code, 'expired');
    });
  });
}
