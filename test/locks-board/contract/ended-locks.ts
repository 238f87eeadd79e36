/**
 * SPEC §14 in the store: a lock taken from a work tree that ends is not a hold yet. It waits — no longer
 * live, still keeping other work trees off its paths — until core has asked git which of its keys are
 * pending there; those become the hold, the rest end for the reason the lock ended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Board, freshBoard, op, S } from '../../store/contract/board.js';
import type { MakeStore } from '../../support/ctx.js';
import { held, lockEvents } from './helpers.js';

const take = (b: Board, lock_id: string, worktree: string, resources: string[], lease_s = 600) =>
  b.store.acquireLocks({
    lock_id,
    board: 'default',
    agent: 'alice',
    resources,
    lease_ms: lease_s * S,
    session_id: null,
    worktree,
  });

export function endedLocksContract(make: MakeStore): void {
  describe('a work tree lock that ends waits for git before it is a hold (SPEC §14)', () => {
    const board = freshBoard(make);

    test('an unlocked work-tree lock is neither live nor a hold until git is asked: it is listed as ended, keeps another work tree off its paths, never its own', async () => {
      const b = board();
      assert.equal((await take(b, 'l_ended1', '/w/a', ['src/a.ts', 'src/b.ts'])).ok, true);
      assert.deepEqual(await b.store.releaseLock('l_ended1'), { released: true });
      assert.deepEqual(await held(b), {}, 'not listed as a lock or a hold');
      assert.deepEqual(await b.store.endedLocks('default'), [
        {
          lock_id: 'l_ended1',
          board: 'default',
          agent: 'alice',
          task_id: null,
          worktree: '/w/a',
          resources: ['src/a.ts', 'src/b.ts'],
        },
      ]);
      assert.deepEqual(
        (await lockEvents(b)).map((e) => e.type),
        ['lock.acquired'],
        'nothing is said until git has been asked',
      );
      const other = await take(b, 'l_ended2', '/w/b', ['src/a.ts']);
      assert.equal(other.ok, false);
      assert.equal(!other.ok && other.reason === 'lock_conflict' && other.conflicts[0]?.hold, true);
      assert.equal((await take(b, 'l_ended3', '/w/a', ['src/a.ts'])).ok, true, 'the same work tree goes on');
    });

    test('an ended lock none of whose paths is pending ends for the reason it ended, never becoming a hold', async () => {
      const b = board();
      await take(b, 'l_ended1', '/w/a', ['src/a.ts']);
      await b.store.releaseLock('l_ended1');
      assert.equal(await b.store.trimHolds([{ lock_id: 'l_ended1', keep: [], reason: 'merged' }]), 1);
      assert.deepEqual(
        (await lockEvents(b)).map((e) => [e.type, e.reason]),
        [
          ['lock.acquired', undefined],
          ['lock.released', 'released'],
        ],
      );
      assert.deepEqual(await b.store.endedLocks(), []);
      assert.equal((await take(b, 'l_ended2', '/w/b', ['src/a.ts'])).ok, true);
    });

    test('an ended lock keeps as a hold only its pending paths, held for the reason it ended', async () => {
      const b = board();
      await take(b, 'l_ended1', '/w/a', ['src/a.ts', 'src/b.ts']);
      await b.store.releaseLock('l_ended1');
      await b.store.trimHolds([{ lock_id: 'l_ended1', keep: ['src/a.ts'], reason: 'merged' }]);
      const [hold, ...rest] = await b.store.listLocks('default');
      assert.deepEqual(rest, []);
      assert.deepEqual(hold?.resources, ['src/a.ts']);
      assert.ok(hold?.hold);
      assert.deepEqual((await lockEvents(b)).at(-1), { type: 'lock.held', lock_id: 'l_ended1', reason: 'released' });
      assert.equal((await take(b, 'l_ended2', '/w/b', ['src/b.ts'])).ok, true, 'the path not pending is free');
      assert.equal((await take(b, 'l_ended3', '/w/b', ['src/a.ts'])).ok, false);
    });

    test('a lapsed work-tree lock, swept, waits for git as well and ends as lease_lapsed when nothing is pending', async () => {
      const b = board();
      await take(b, 'l_ended1', '/w/a', ['src/a.ts'], 1);
      b.clock.advance(2 * S);
      await b.store.sweep();
      assert.deepEqual(
        (await b.store.endedLocks()).map((l) => l.lock_id),
        ['l_ended1'],
      );
      await b.store.sweep();
      assert.deepEqual(
        (await lockEvents(b)).map((e) => e.type),
        ['lock.acquired'],
        'a second sweep leaves it to git',
      );
      await b.store.trimHolds([{ lock_id: 'l_ended1', keep: [], reason: 'merged' }]);
      assert.deepEqual((await lockEvents(b)).at(-1), {
        type: 'lock.released',
        lock_id: 'l_ended1',
        reason: 'lease_lapsed',
      });
    });
    test("a plain work-tree lock that ends with its session is the task's its agent claimed in that work tree (its hold names the task)", async () => {
      const b = board();
      const SESSION = '0b7f3a52-3333-4c3e-9d5e-000000000003';
      const task = await b.post('lead');
      const other = await b.post('lead');
      const grant = await b.call(op.claimTask, { task_id: task.id, agent: 'alice' }, SESSION);
      await b.store.recordClaimTree(task.id, { claim_id: grant.claim_id, worktree: '/w/a', head: null });
      const elsewhere = await b.call(op.claimTask, { task_id: other.id, agent: 'alice' }, SESSION);
      await b.store.recordClaimTree(other.id, { claim_id: elsewhere.claim_id, worktree: '/w/z', head: null });
      const locked = await b.store.acquireLocks({
        lock_id: 'l_session1',
        board: 'default',
        agent: 'alice',
        resources: ['src/a.ts'],
        lease_ms: 600 * S,
        session_id: SESSION,
        worktree: '/w/a',
      });
      assert.equal(locked.ok, true);
      await b.store.endSession(SESSION);
      const ended = await b.store.endedLocks('default');
      assert.deepEqual(
        ended.map((l) => [l.lock_id, l.task_id]),
        [['l_session1', task.id]],
      );
      assert.equal(await b.store.trimHolds([{ lock_id: 'l_session1', keep: ['src/a.ts'], reason: 'merged' }]), 1);
      const hold = (await b.store.listLocks('default')).find((l) => l.lock_id === 'l_session1');
      assert.equal(hold?.task_id, task.id);
      const refused = await take(b, 'l_session2', '/w/b', ['src/a.ts']);
      assert.equal(!refused.ok && refused.reason === 'lock_conflict' && refused.conflicts[0]?.task_id, task.id);
    });
  });
}
