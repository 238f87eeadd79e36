import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Board, freshBoard, op, S } from '../../store/contract/board.js';
import type { MakeStore } from '../../support/ctx.js';
import { claimWithFiles, conflicts, held, lock, lockEvents } from './helpers.js';

/** Each way a claim can end, and what ends it. */
const endings: [string, (b: Board, task_id: string, claim_id: string) => Promise<unknown>][] = [
  ['submit', (b, task_id, claim_id) => b.call(op.submitResult, { task_id, claim_id, status: 'completed' })],
  ['a failed submit', (b, task_id, claim_id) => b.call(op.submitResult, { task_id, claim_id, status: 'failed' })],
  ['release', (b, task_id, claim_id) => b.call(op.releaseTask, { task_id, claim_id })],
  ['handoff', (b, task_id, claim_id) => b.call(op.releaseTask, { task_id, claim_id, to: 'carol' })],
  ['cancel', (b, task_id) => b.call(op.cancelTask, { task_id, agent: 'alice' })],
  [
    'the lease lapsing',
    async (b) => {
      b.clock.advance(300 * S);
    },
  ],
  [
    'the ttl expiring',
    async (b) => {
      b.clock.advance(3600 * S);
    },
  ],
];

export function claimFilesContract(make: MakeStore): void {
  describe('claim with files (rule 10)', () => {
    const board = freshBoard(make);

    test('a claim whose files are held fails lock_conflict naming the holder, and the task stays queued and unclaimed', async () => {
      const b = board();
      const task = await b.post('alice');
      const held_ = await lock(b, 'carol', ['src/']);
      const err = await b.fail(op.claimTask, { task_id: task.id, agent: 'bob', files: ['README.md', 'src/app.ts'] });
      assert.equal(err.code, 'lock_conflict');
      assert.deepEqual(
        (err.details.conflicts as { resource: string; holder: string; lock_id: string }[]).map((c) => [
          c.resource,
          c.holder,
          c.lock_id,
        ]),
        [['src/app.ts', 'carol', held_.lock_id]],
      );
      const after = await b.show(task.id);
      assert.equal(after.state, 'queued');
      assert.equal(after.attempts, 0, 'no claim was counted');
      assert.deepEqual(await held(b), { 'src/': 'carol' }, 'README.md was not locked either');
      assert.equal((await b.events()).filter((e) => e.type === 'task.claimed').length, 0, 'no claim event leaked');
      // The task is still claimable by someone else, with or without files.
      assert.equal((await claimWithFiles(b, task.id, 'dave', ['README.md'])).task.claimed_by, 'dave');
    });

    test('a claim with files over a lapsed lock releases the lapsed lock in the log before acquiring its own', async () => {
      const b = board();
      const task = await b.post('alice');
      const old = await lock(b, 'carol', ['src/'], 1);
      b.clock.advance(2 * S);
      const grant = await claimWithFiles(b, task.id, 'bob', ['src/a.ts']);
      assert.deepEqual(
        (await lockEvents(b)).map((e) => [e.type, e.lock_id, e.reason]),
        [
          ['lock.acquired', old.lock_id, undefined],
          ['lock.released', old.lock_id, 'lease_lapsed'],
          ['lock.acquired', grant.lock?.lock_id, undefined],
        ],
        'whoever replays the log never sees two holders of src/a.ts',
      );
    });

    test('a claim with files claims the task and locks the files for the claimer, bound to the task', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await claimWithFiles(b, task.id, 'bob', ['src/b.ts', './src/a.ts']);
      assert.equal(grant.task.state, 'claimed');
      assert.deepEqual(grant.lock?.resources, ['src/a.ts', 'src/b.ts']);
      const { locks } = await b.call(op.listLocks, {});
      assert.equal(locks.length, 1);
      assert.equal(locks[0]!.lock_id, grant.lock?.lock_id);
      assert.equal(locks[0]!.agent, 'bob');
      assert.equal(locks[0]!.task_id, task.id);
      assert.equal(locks[0]!.lease_until, grant.lease_until, "the lock's lease is the claim's");
      assert.equal(JSON.stringify(locks).includes(grant.claim_id), false, 'the claim_id never shows in a lock');
      assert.deepEqual(
        (await conflicts(b, 'carol', ['src/a.ts'])).map((c) => c.holder),
        ['bob'],
      );
    });

    test("heartbeating the claim keeps its files locked past the claim's first lease", async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.call(op.claimTask, { task_id: task.id, agent: 'bob', lease_s: 30, files: ['a.ts'] });
      b.clock.advance(20 * S);
      const beat = await b.call(op.heartbeat, { task_id: task.id, claim_id: grant.claim_id });
      b.clock.advance(20 * S);
      const [l] = (await b.call(op.listLocks, {})).locks;
      assert.equal(l?.lease_until, beat.lease_until);
      assert.equal((await conflicts(b, 'carol', ['a.ts'])).length, 1);
      assert.deepEqual(await b.call(op.renewLock, { lock_id: grant.lock!.lock_id }), { lease_until: beat.lease_until });
    });

    for (const [name, end] of endings) {
      test(`the files are freed when the claim ends by ${name}`, async () => {
        const b = board();
        const task = await b.post('alice', { ttl_s: 3600 });
        const grant = await claimWithFiles(b, task.id, 'bob', ['src/', 'a.ts']);
        await end(b, task.id, grant.claim_id);
        assert.deepEqual(await held(b), {});
        assert.ok(await lock(b, 'carol', ['src/x.ts', 'a.ts']), 'another agent can lock them now');
        const released = (await lockEvents(b)).filter((e) => e.lock_id === grant.lock?.lock_id);
        assert.deepEqual(
          released.map((e) => e.type),
          ['lock.acquired', 'lock.released'],
        );
      });
    }

    test('submitting the holder’s claim frees its files for a claim that was refused before', async () => {
      const b = board();
      const first = await b.post('alice');
      const second = await b.post('alice');
      const holder = await claimWithFiles(b, first.id, 'bob', ['src/shared.ts']);
      assert.equal(
        (await b.fail(op.claimTask, { task_id: second.id, agent: 'carol', files: ['src/shared.ts'] })).code,
        'lock_conflict',
      );
      await b.call(op.submitResult, { task_id: first.id, claim_id: holder.claim_id, status: 'completed' });
      const now = await claimWithFiles(b, second.id, 'carol', ['src/shared.ts']);
      assert.deepEqual(now.lock?.resources, ['src/shared.ts']);
    });

    test('a claim that loses the task answers claimed, not lock_conflict, and locks nothing', async () => {
      const b = board();
      const task = await b.post('alice');
      await claimWithFiles(b, task.id, 'bob', ['a.ts']);
      const err = await b.fail(op.claimTask, { task_id: task.id, agent: 'carol', files: ['a.ts', 'b.ts'] });
      assert.equal(err.code, 'claimed');
      assert.deepEqual(await held(b), { 'a.ts': 'bob' });
    });

    test('the holder claiming again gets the same claim and the same lock, nothing new', async () => {
      const b = board();
      const task = await b.post('alice');
      const first = await claimWithFiles(b, task.id, 'bob', ['a.ts']);
      const again = await claimWithFiles(b, task.id, 'bob', ['a.ts']);
      assert.equal(again.reclaimed, true);
      assert.equal(again.claim_id, first.claim_id);
      assert.deepEqual(again.lock, first.lock);
      assert.equal((await b.call(op.listLocks, {})).locks.length, 1);
    });

    test('releasing a claim’s lock early frees the files and leaves the claim alone', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await claimWithFiles(b, task.id, 'bob', ['a.ts']);
      await b.call(op.unlockFiles, { lock_id: grant.lock!.lock_id });
      assert.deepEqual(await held(b), {});
      assert.equal((await b.show(task.id)).state, 'claimed');
      await b.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed' });
    });
  });
}
