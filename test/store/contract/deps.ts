/** SPEC §11 on every store: blocked_by edges, readiness, task.ready, parents and plans. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op, S } from './board.js';

/** Claims and completes a task as `agent`. */
export async function finish(b: Board, id: string, agent = 'worker', status: 'completed' | 'failed' = 'completed') {
  const g = await b.claim(id, agent);
  return (await b.call(op.submitResult, { task_id: id, claim_id: g.claim_id, status })).task;
}

/** Everything a refused request could have written: the event log and every task as the operator sees it. */
export async function written(b: Board): Promise<string> {
  const { tasks } = await b.call(op.listTasks, { limit: 500 });
  return JSON.stringify({ events: (await b.events()).length, tasks });
}

const ids = (tasks: { id: string }[]) => tasks.map((t) => t.id).sort();

export function depsContract(make: MakeStore): void {
  describe('dependencies (SPEC §11)', () => {
    const board = freshBoard(make);

    test('a task posted blocked_by an open task is not ready and lists its open blockers with their states', async () => {
      const b = board();
      const first = await b.post('alice', { title: 'schema' });
      const second = await b.post('alice', { title: 'api' });
      await b.claim(second.id, 'bob');
      const t = await b.post('alice', { title: 'ui', blocked_by: [first.id, second.id, first.id] });
      assert.deepEqual(t.blocked_by, [first.id, second.id]);
      assert.equal(t.ready, false);
      assert.deepEqual(t.blocked, [
        { id: first.id, state: 'queued' },
        { id: second.id, state: 'claimed' },
      ]);
      assert.deepEqual(await b.show(t.id), t);
      assert.equal(first.ready, true);
      assert.deepEqual(first.blocked, []);
    });

    test('claim by id of a blocked task fails with blocked, listing each open blocker with its state, and claims nothing', async () => {
      const b = board();
      const blocker = await b.post('alice');
      const t = await b.post('alice', { blocked_by: [blocker.id] });
      const before = await written(b);
      const err = await b.fail(op.claimTask, { task_id: t.id, agent: 'bob' });
      assert.equal(err.code, 'blocked');
      assert.deepEqual(err.details.blocked, [{ id: blocker.id, state: 'queued' }]);
      assert.match(err.message, new RegExp(`#${blocker.id} \\(queued\\)`));
      assert.equal(await written(b), before);
    });

    test('claim-next skips blocked tasks whatever their priority, and takes them once every blocker completed', async () => {
      const b = board();
      const a = await b.post('alice', { title: 'a', priority: 5 });
      b.clock.advance(S);
      const c = await b.post('alice', { title: 'c', priority: 5 });
      const urgent = await b.post('alice', { title: 'after a and c', priority: -100, blocked_by: [a.id, c.id] });
      assert.equal((await b.call(op.claimNext, { agent: 'w' }))?.task.id, a.id);
      assert.equal((await b.call(op.claimNext, { agent: 'w' }))?.task.id, c.id);
      assert.equal(await b.call(op.claimNext, { agent: 'w' }), null);
      await b.call(op.submitResult, {
        task_id: a.id,
        claim_id: (await b.claim(a.id, 'w')).claim_id,
        status: 'completed',
      });
      assert.equal(await b.call(op.claimNext, { agent: 'w' }), null, 'one blocker is still open');
      await b.call(op.submitResult, {
        task_id: c.id,
        claim_id: (await b.claim(c.id, 'w')).claim_id,
        status: 'completed',
      });
      const grant = await b.call(op.claimNext, { agent: 'w' });
      assert.equal(grant?.task.id, urgent.id);
    });

    test('completing the last open blocker readies the dependent in the same transaction, with one task.ready event', async () => {
      const b = board();
      const x = await b.post('alice');
      const y = await b.post('alice');
      const t = await b.post('alice', { blocked_by: [x.id, y.id] });
      const other = await b.post('alice', { blocked_by: [x.id] });
      await finish(b, x.id);
      let events = await b.events();
      assert.deepEqual(
        events.filter((e) => e.type === 'task.ready').map((e) => e.task_id),
        [other.id],
      );
      const half = await b.show(t.id);
      assert.equal(half.ready, false);
      assert.deepEqual(half.blocked, [{ id: y.id, state: 'queued' }]);
      await finish(b, y.id);
      events = await b.events();
      const ready = events.filter((e) => e.type === 'task.ready');
      assert.deepEqual(
        ready.map((e) => e.task_id),
        [other.id, t.id],
      );
      // Same transaction: the ready event directly follows the completion that caused it.
      const completed = events.findIndex((e) => e.type === 'task.completed' && e.task_id === y.id);
      assert.equal(events[completed + 1]?.type, 'task.ready');
      const now = await b.show(t.id);
      assert.equal(now.ready, true);
      assert.deepEqual(now.blocked, []);
    });

    test('failed, cancelled and expired blockers leave their dependents blocked, and the dependents say so', async () => {
      const b = board();
      const failing = await b.post('alice');
      const cancelled = await b.post('alice');
      const expiring = await b.post('alice', { ttl_s: 5 });
      const t = await b.post('alice', { blocked_by: [failing.id, cancelled.id, expiring.id] });
      await finish(b, failing.id, 'w', 'failed');
      await b.call(op.cancelTask, { task_id: cancelled.id, agent: 'alice' });
      b.clock.advance(10 * S);
      const now = await b.show(t.id);
      assert.equal(now.ready, false);
      assert.deepEqual(now.blocked, [
        { id: failing.id, state: 'failed' },
        { id: cancelled.id, state: 'cancelled' },
        { id: expiring.id, state: 'expired' },
      ]);
      assert.equal((await b.fail(op.claimTask, { task_id: t.id, agent: 'bob' })).code, 'blocked');
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      assert.equal((await b.events()).filter((e) => e.type === 'task.ready').length, 0);
      // Removing the edges is how a human unblocks it.
      const freed = await b.call(op.setDeps, {
        task_id: t.id,
        agent: 'alice',
        remove: [failing.id, cancelled.id, expiring.id],
      });
      assert.equal(freed.task.ready, true);
      assert.deepEqual(freed.task.blocked_by, []);
      assert.equal((await b.events()).at(-1)?.type, 'task.ready');
      assert.equal((await b.call(op.claimNext, { agent: 'bob' }))?.task.id, t.id);
    });

    test('a completed blocker counts as done: the new task is ready at once', async () => {
      const b = board();
      const done = await finish(b, (await b.post('alice')).id);
      const t = await b.post('alice', { blocked_by: [done.id] });
      assert.equal(t.ready, true);
      assert.deepEqual(t.blocked, []);
      assert.deepEqual(t.blocked_by, [done.id]);
    });

    test('deps add makes a queued task wait, deps remove of its last open blocker readies it', async () => {
      const b = board();
      const x = await b.post('alice');
      const t = await b.post('alice');
      const added = await b.call(op.setDeps, { task_id: t.id, agent: 'alice', add: [x.id] });
      assert.deepEqual(added.task.blocked_by, [x.id]);
      assert.deepEqual(added.task.blocked, [{ id: x.id, state: 'queued' }]);
      assert.equal((await b.fail(op.claimTask, { task_id: t.id, agent: 'bob' })).code, 'blocked');
      // Adding again is a no-op.
      const again = await b.call(op.setDeps, { task_id: t.id, agent: 'alice', add: [x.id] });
      assert.deepEqual(again.task.blocked_by, [x.id]);
      const removed = await b.call(op.setDeps, { task_id: t.id, agent: 'alice', remove: [x.id] });
      assert.equal(removed.task.ready, true);
      assert.deepEqual(removed.task.blocked_by, []);
      assert.equal((await b.claim(t.id, 'bob')).task.id, t.id);
    });

    test('an unknown, private or other-board blocker is not_found naming it, and nothing is written', async () => {
      const b = board();
      const t = await b.post('alice');
      const ok = await b.post('alice');
      const secret = await b.post('carol', { for: 'dave' });
      const elsewhere = await b.post('alice', { board: 'other' });
      const before = await written(b);
      for (const bad of ['nosuch12', secret.id, elsewhere.id]) {
        const err = await b.fail(op.setDeps, { task_id: t.id, agent: 'alice', add: [ok.id, bad] });
        assert.equal(err.code, 'not_found');
        assert.equal(err.details.task_id, bad);
        assert.match(err.message, new RegExp(`#${bad}`));
        const posted = await b.fail(op.createTask, { title: 'x', agent: 'alice', blocked_by: [ok.id, bad] });
        assert.equal(posted.code, 'not_found');
        assert.equal(posted.details.task_id, bad);
      }
      assert.equal(await written(b), before);
      // The target of the private task may use it as a blocker.
      const mine = await b.post('dave');
      const used = await b.call(op.setDeps, { task_id: mine.id, agent: 'dave', add: [secret.id] });
      assert.deepEqual(used.task.blocked_by, [secret.id]);
    });

    test('an edge that would close a cycle is dependency_cycle naming the cycle, and nothing is written', async () => {
      const b = board();
      const a = await b.post('alice', { title: 'a' });
      const m = await b.post('alice', { title: 'm', blocked_by: [a.id] });
      const z = await b.post('alice', { title: 'z', blocked_by: [m.id] });
      const before = await written(b);
      const err = await b.fail(op.setDeps, { task_id: a.id, agent: 'alice', add: [z.id] });
      assert.equal(err.code, 'dependency_cycle');
      assert.deepEqual(err.details.cycle, [a.id, z.id, m.id, a.id]);
      assert.match(err.message, new RegExp(`${a.id} → ${z.id} → ${m.id} → ${a.id}`));
      const self = await b.fail(op.setDeps, { task_id: a.id, agent: 'alice', add: [a.id] });
      assert.equal(self.code, 'dependency_cycle');
      assert.deepEqual(self.details.cycle, [a.id, a.id]);
      // A request with a good edge and a cycle-closing one writes neither.
      const other = await b.post('alice');
      const mid = await written(b);
      const mixed = await b.fail(op.setDeps, { task_id: a.id, agent: 'alice', add: [other.id, z.id] });
      assert.equal(mixed.code, 'dependency_cycle');
      assert.equal(await written(b), mid);
      assert.notEqual(before, mid);
    });

    test('blockers cannot be added to a claimed or finished task (claimed names the holder); a claimed one may lose some, a finished one never changes', async () => {
      const b = board();
      const x = await b.post('alice');
      const held = await b.post('alice');
      await b.claim(held.id, 'bob');
      const err = await b.fail(op.setDeps, { task_id: held.id, agent: 'alice', add: [x.id] });
      assert.equal(err.code, 'claimed');
      assert.equal(err.details.holder, 'bob');
      const done = await finish(b, (await b.post('alice')).id);
      assert.equal((await b.fail(op.setDeps, { task_id: done.id, agent: 'alice', add: [x.id] })).code, 'not_claimable');
      const none = await b.call(op.setDeps, { task_id: held.id, agent: 'alice', remove: [x.id] });
      assert.equal(none.task.state, 'claimed');
      // A finished task never changes again: removing is refused too.
      const before = await written(b);
      assert.equal(
        (await b.fail(op.setDeps, { task_id: done.id, agent: 'alice', remove: [x.id] })).code,
        'not_claimable',
      );
      assert.equal(await written(b), before);
    });

    test('a task may wait for at most 50 others', async () => {
      const b = board();
      const blockers: string[] = [];
      for (let i = 0; i < 51; i++) blockers.push((await b.post('alice')).id);
      assert.equal(
        (await b.fail(op.createTask, { title: 't', agent: 'a', blocked_by: blockers })).code,
        'invalid_request',
      );
      const t = await b.post('alice', { blocked_by: blockers.slice(0, 50) });
      const before = await written(b);
      const err = await b.fail(op.setDeps, { task_id: t.id, agent: 'alice', add: [blockers[50]!] });
      assert.equal(err.code, 'invalid_request');
      assert.equal(await written(b), before);
    });

    test('a long-polling claim-next wakes on task.ready and takes the task that became ready', async () => {
      const b = board();
      const x = await b.post('alice');
      const grant = await b.claim(x.id, 'w1');
      const t = await b.post('alice', { blocked_by: [x.id] });
      const waiting = b.call(op.claimNext, { agent: 'w2', wait_s: 30 });
      await b.call(op.submitResult, { task_id: x.id, claim_id: grant.claim_id, status: 'completed' });
      assert.equal((await waiting)?.task.id, t.id);
    });

    test('the inbox lists ready tasks only and counts the blocked ones', async () => {
      const b = board();
      const x = await b.post('alice', { title: 'ready one' });
      await b.post('alice', { title: 'waits', blocked_by: [x.id] });
      await b.post('alice', { title: 'waits too', blocked_by: [x.id], for: 'bob' });
      await b.post('alice', { title: 'waits for carol', blocked_by: [x.id], for: 'carol' });
      const view = await b.call(op.inbox, { agent: 'bob' });
      assert.deepEqual(
        view.tasks.map((t) => t.id),
        [x.id],
      );
      assert.equal(view.blocked, 2);
      assert.equal(view.more, 0);
      const since = await b.call(op.inbox, { agent: 'bob', since: 0 });
      assert.deepEqual(
        since.tasks.map((t) => t.id),
        [x.id],
      );
      assert.deepEqual(since.gone, []);
    });

    test('list filters: ready takes queued tasks with every blocker completed, blocked those still waiting', async () => {
      const b = board();
      const x = await b.post('alice');
      const t = await b.post('alice', { blocked_by: [x.id] });
      const held = await b.post('alice');
      await b.claim(held.id, 'bob');
      assert.deepEqual(ids((await b.call(op.listTasks, { ready: true })).tasks), [x.id]);
      assert.deepEqual(ids((await b.call(op.listTasks, { blocked: 'true' })).tasks), [t.id]);
      const both = (await b.call(op.listTasks, { ready: true, blocked: true })).tasks;
      assert.deepEqual(ids(both), ids([x, t]));
      const listed = (await b.call(op.listTasks, { blocked: true })).tasks[0];
      assert.deepEqual(listed?.blocked, [{ id: x.id, state: 'queued' }]);
    });

    test('a parent counts its children and their completions; children are listed by parent', async () => {
      const b = board();
      const epic = await b.post('alice', { title: 'epic' });
      assert.equal(epic.children, undefined);
      const c1 = await b.post('alice', { parent: epic.id });
      const c2 = await b.post('alice', { parent: epic.id });
      await b.post('alice');
      assert.equal(c1.parent, epic.id);
      assert.deepEqual((await b.show(epic.id)).children, { total: 2, completed: 0 });
      await finish(b, c1.id);
      await finish(b, c2.id, 'w', 'failed');
      assert.deepEqual((await b.show(epic.id)).children, { total: 2, completed: 1 });
      assert.deepEqual(ids((await b.call(op.listTasks, { parent: epic.id })).tasks), ids([c1, c2]));
      const elsewhere = await b.post('alice', { board: 'other' });
      const err = await b.fail(op.createTask, { title: 'x', agent: 'alice', parent: elsewhere.id });
      assert.equal(err.code, 'not_found');
      assert.equal(err.details.task_id, elsewhere.id);
    });
  });
}
