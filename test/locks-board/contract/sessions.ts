import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { freshBoard, op } from '../../store/contract/board.js';
import type { MakeStore } from '../../support/ctx.js';
import { claimWithFiles, held, lock } from './helpers.js';

const SESSION = '0b7f3a52-1111-4c3e-9d5e-000000000001';
const OTHER = '0b7f3a52-2222-4c3e-9d5e-000000000002';

export function sessionContract(make: MakeStore): void {
  describe('locks and claims die with their session (rule 13)', () => {
    const board = freshBoard(make);

    test("ending a session requeues its claims and frees its locks at once, and leaves other sessions' alone", async () => {
      const b = board();
      const t1 = await b.post('alice');
      const t2 = await b.post('alice');
      const t3 = await b.post('alice');
      const c1 = await claimWithFiles(b, t1.id, 'bob', ['claimed.ts'], SESSION);
      const c2 = await b.call(op.claimTask, { task_id: t2.id, agent: 'bob' }, SESSION);
      const plain = await lock(b, 'bob', ['plain.ts'], 3600, SESSION);
      const kept = await claimWithFiles(b, t3.id, 'carol', ['other.ts'], OTHER);
      const keptLock = await lock(b, 'carol', ['other-plain.ts'], 3600, OTHER);

      const ended = await b.store.endSession(SESSION);
      assert.deepEqual([...ended.requeued].sort(), [t1.id, t2.id].sort());
      assert.deepEqual([...ended.released].sort(), [c1.lock!.lock_id, plain.lock_id].sort());

      for (const t of [t1, t2]) {
        const now = await b.show(t.id);
        assert.equal(now.state, 'queued');
        assert.equal(now.claimed_by, null);
      }
      assert.deepEqual(await held(b), { 'other.ts': 'carol', 'other-plain.ts': 'carol' });
      assert.equal((await b.show(t3.id)).claimed_by, 'carol');
      assert.ok(keptLock && kept);

      // The dead session's claim_ids are fenced off like any requeued claim.
      const err = await b.fail(op.heartbeat, { task_id: t2.id, claim_id: c2.claim_id });
      assert.equal(err.code, 'stale_claim');
      const { events } = await b.call(op.listEvents, { limit: 1000 });
      const requeued = events.filter((e) => e.type === 'task.requeued');
      assert.deepEqual(
        requeued.map((e) => e.data.reason),
        ['session_ended', 'session_ended'],
      );
      const released = events.filter((e) => e.type === 'lock.released');
      assert.deepEqual(released.map((e) => e.data.reason).sort(), ['claim_ended', 'session_ended']);
    });

    test('ending a session twice, or one that held nothing, frees nothing and is not an error', async () => {
      const b = board();
      await lock(b, 'bob', ['a.ts'], 60, SESSION);
      assert.equal((await b.store.endSession(SESSION)).released.length, 1);
      assert.deepEqual(await b.store.endSession(SESSION), { requeued: [], released: [] });
      assert.deepEqual(await b.store.endSession(OTHER), { requeued: [], released: [] });
    });

    test('a task requeued by a session end can be claimed again at once, fence one higher', async () => {
      const b = board();
      const t = await b.post('alice');
      await claimWithFiles(b, t.id, 'bob', ['a.ts'], SESSION);
      await b.store.endSession(SESSION);
      const again = await claimWithFiles(b, t.id, 'carol', ['a.ts']);
      assert.equal(again.fence, 2);
      assert.deepEqual(await held(b), { 'a.ts': 'carol' });
    });
  });
}
