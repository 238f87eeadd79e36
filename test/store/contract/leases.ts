import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op, S } from './board.js';

/** The error code each fenced operation answers for this claim_id (null = it succeeded). */
async function fencedCodes(b: Board, task_id: string, claim_id: string): Promise<Record<string, string | null>> {
  const code = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { code?: string }) => e.code ?? Promise.reject(e),
    );
  return {
    heartbeat: await code(b.call(op.heartbeat, { task_id, claim_id })),
    artifact: await code(
      b.call(op.putArtifact, { task_id, claim_id, artifact_id: `probe-${claim_id}`, bytes: new Uint8Array([1]) }),
    ),
    release: await code(b.call(op.releaseTask, { task_id, claim_id })),
    submit: await code(b.call(op.submitResult, { task_id, claim_id, status: 'completed', result: 1 })),
  };
}

const all = (code: string) => ({ heartbeat: code, artifact: code, release: code, submit: code });

export function leaseContract(make: MakeStore): void {
  describe('leases and fencing', () => {
    const board = freshBoard(make);

    test('a claim whose lease lapses is requeued and its claim_id answers lease_expired everywhere', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob', 30);
      b.clock.advance(29_999);
      assert.equal((await b.show(task.id)).state, 'claimed');
      b.clock.advance(1);
      const requeued = await b.show(task.id);
      assert.equal(requeued.state, 'queued');
      assert.equal(requeued.claimed_by, null);
      assert.equal(requeued.lease_until, null);
      assert.equal(requeued.attempts, 1);
      assert.deepEqual(await fencedCodes(b, task.id, grant.claim_id), all('lease_expired'));
      assert.equal((await b.show(task.id)).state, 'queued', 'the rejected calls changed nothing');
    });

    test('the next claim after a lapse carries fence 2, and the old claim_id is stale_claim everywhere', async () => {
      const b = board();
      const task = await b.post('alice');
      const old = await b.claim(task.id, 'bob', 30);
      b.clock.advance(31 * S);
      const next = await b.claim(task.id, 'carol', 30);
      assert.equal(old.fence, 1);
      assert.equal(next.fence, 2);
      assert.equal(next.task.attempts, 2);
      assert.notEqual(next.claim_id, old.claim_id);
      const before = await b.show(task.id);
      assert.deepEqual(await fencedCodes(b, task.id, old.claim_id), all('stale_claim'));
      assert.deepEqual(await b.show(task.id), before, 'a stale claim_id never changes the row');
      assert.equal(
        await b.call(op.getArtifact, { task_id: task.id, artifact_id: `probe-${old.claim_id}` }).then(
          () => 'found',
          (e: { code: string }) => e.code,
        ),
        'not_found',
      );
    });

    test('the previous holder claiming a lapsed task again gets a new claim, not its old one', async () => {
      const b = board();
      const task = await b.post('alice');
      const old = await b.claim(task.id, 'bob', 30);
      b.clock.advance(30 * S);
      const again = await b.claim(task.id, 'bob', 30);
      assert.equal(again.reclaimed, false);
      assert.notEqual(again.claim_id, old.claim_id);
      assert.equal(again.fence, 2);
    });

    test('a claim_id that was never issued answers not_claimed on a fresh task and stale_claim once it was claimed', async () => {
      const b = board();
      const task = await b.post('alice');
      assert.equal((await b.fail(op.heartbeat, { task_id: task.id, claim_id: 'c_forged' })).code, 'not_claimed');
      await b.claim(task.id, 'bob');
      assert.deepEqual(await fencedCodes(b, task.id, 'c_forged'), all('stale_claim'));
      assert.equal((await b.fail(op.heartbeat, { task_id: 'nosuch', claim_id: 'c_forged' })).code, 'not_found');
    });

    test('heartbeat extends the lease from now by the claimed lease length, or by lease_s when given', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob', 30);
      b.clock.advance(20 * S);
      const hb = await b.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id });
      assert.equal(hb.lease_until, new Date(b.clock.now() + 30 * S).toISOString());
      b.clock.advance(20 * S);
      assert.equal((await b.show(task.id)).state, 'claimed', 'alive past its first lease');
      const longer = await b.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id, lease_s: 600 });
      assert.equal(longer.lease_until, new Date(b.clock.now() + 600 * S).toISOString());
      assert.equal((await b.show(task.id)).lease_until, longer.lease_until);
      b.clock.advance(100 * S);
      const dflt = await b.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id });
      assert.equal(
        dflt.lease_until,
        new Date(b.clock.now() + 30 * S).toISOString(),
        'the default stays the claimed lease',
      );
      const done = await b.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed' });
      assert.equal(done.task.attempts, 1);
    });

    test('release ends the claim: the task is queued again and the released claim_id is stale_claim', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.claim(task.id, 'bob');
      const { task: back } = await b.call(op.releaseTask, { task_id: task.id, claim_id: grant.claim_id });
      assert.equal(back.state, 'queued');
      assert.equal(back.claimed_by, null);
      assert.deepEqual(await fencedCodes(b, task.id, grant.claim_id), all('stale_claim'));
    });
  });
}
