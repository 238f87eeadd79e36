import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function inboxContract(make: MakeStore): void {
  describe('inbox', () => {
    const board = freshBoard(make);

    test("lists the agent's own claims first, then tasks addressed to it, then the board's queued tasks by priority and age", async () => {
      const b = board();
      const low = await b.post('alice', { title: 'low', priority: 5 });
      b.clock.advance(S);
      const oldP0 = await b.post('alice', { title: 'old p0' });
      b.clock.advance(S);
      const newP0 = await b.post('alice', { title: 'new p0' });
      const mine = await b.post('alice', { title: 'for me', for: 'me', priority: 9 });
      await b.post('alice', { title: 'for someone else', for: 'other' });
      await b.post('alice', { title: 'other board', board: 'elsewhere' });
      const held = await b.post('alice', { title: 'held by me' });
      await b.claim(held.id, 'me', 60);
      const theirs = await b.post('alice', { title: 'held by other' });
      await b.claim(theirs.id, 'other');

      const view = await b.call(op.inbox, { agent: 'me' });
      assert.equal(view.agent, 'me');
      assert.equal(view.board, 'default');
      assert.deepEqual(
        view.claims.map((c) => [c.task.id, c.lease_until]),
        [[held.id, new Date(b.clock.now() + 60 * S).toISOString()]],
      );
      assert.deepEqual(
        view.tasks.map((t) => t.id),
        [mine.id, oldP0.id, newP0.id, low.id],
      );
      assert.equal(view.more, 0);
      assert.deepEqual(view.gone, []);
      assert.equal(view.cursor, (await b.call(op.listEvents, {})).next_since);
    });

    test('shows at most 20 tasks and counts the rest in `more`', async () => {
      const b = board();
      for (let i = 0; i < 23; i++) await b.post('alice', { title: `t${i}` });
      const view = await b.call(op.inbox, { agent: 'me' });
      assert.equal(view.tasks.length, 20);
      assert.equal(view.more, 3);
    });

    test('with since it returns only tasks that changed after the cursor, and gone entries for those that left the view', async () => {
      const b = board();
      const takenByOther = await b.post('alice');
      const takenByMe = await b.post('alice');
      const toCancel = await b.post('alice');
      const untouched = await b.post('alice');
      const { cursor } = await b.call(op.inbox, { agent: 'me' });

      b.clock.advance(S);
      await b.claim(takenByOther.id, 'other');
      const grant = await b.claim(takenByMe.id, 'me');
      await b.call(op.cancelTask, { task_id: toCancel.id, agent: 'alice' });
      const fresh = await b.post('alice', { title: 'new' });
      await b.post('alice', { title: 'private to other', for: 'other' });

      const delta = await b.call(op.inbox, { agent: 'me', since: cursor });
      assert.deepEqual(
        delta.claims.map((c) => [c.task.id, c.lease_until]),
        [[takenByMe.id, grant.lease_until]],
      );
      assert.deepEqual(
        delta.tasks.map((t) => t.id),
        [fresh.id],
      );
      assert.deepEqual(
        [...delta.gone].sort((x, y) => x.id.localeCompare(y.id)),
        [
          { id: takenByOther.id, state: 'claimed', claimed_by: 'other' },
          { id: toCancel.id, state: 'cancelled', claimed_by: null },
        ].sort((x, y) => x.id.localeCompare(y.id)),
      );
      assert.ok(![...delta.tasks, ...delta.gone].some((t) => t.id === untouched.id));
      assert.ok(delta.cursor > cursor);

      const quiet = await b.call(op.inbox, { agent: 'me', since: delta.cursor });
      assert.deepEqual(
        { claims: quiet.claims, tasks: quiet.tasks, gone: quiet.gone, more: quiet.more, cursor: quiet.cursor },
        { claims: [], tasks: [], gone: [], more: 0, cursor: delta.cursor },
      );
    });

    test('with since a lapsed lease shows the task back in the queue', async () => {
      const b = board();
      const task = await b.post('alice');
      await b.claim(task.id, 'other', 10);
      const { cursor } = await b.call(op.inbox, { agent: 'me' });
      b.clock.advance(10 * S);
      const delta = await b.call(op.inbox, { agent: 'me', since: cursor });
      assert.deepEqual(
        delta.tasks.map((t) => [t.id, t.state]),
        [[task.id, 'queued']],
      );
    });

    test('the inbox is per board', async () => {
      const b = board();
      const here = await b.post('alice', { board: 'repo-a' });
      await b.post('alice', { board: 'repo-b' });
      const view = await b.call(op.inbox, { agent: 'me', board: 'repo-a' });
      assert.deepEqual(
        view.tasks.map((t) => t.id),
        [here.id],
      );
      assert.deepEqual((await b.call(op.inbox, { agent: 'me' })).tasks, []);
    });
  });
}
