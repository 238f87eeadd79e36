import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';

export function claimNextContract(make: MakeStore): void {
  describe('claiming the next task', () => {
    const board = freshBoard(make);

    test('claim-next takes the lowest priority number first, then the oldest task', async () => {
      const b = board();
      const later = await b.post('alice', { title: 'p1 old', priority: 1 });
      b.clock.advance(S);
      const first = await b.post('alice', { title: 'p0 old', priority: 0 });
      b.clock.advance(S);
      const second = await b.post('alice', { title: 'p0 new', priority: 0 });
      b.clock.advance(S);
      const urgent = await b.post('alice', { title: 'p-5 newest', priority: -5 });
      const order = [];
      for (let i = 0; i < 4; i++) order.push((await b.call(op.claimNext, { agent: 'bob' }))?.task.id);
      assert.deepEqual(order, [urgent.id, first.id, second.id, later.id]);
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
    });

    test('a claim lapsed just before a claim-next is requeued first and, being first in line, is the one taken', async () => {
      const b = board();
      const urgent = await b.post('alice', { title: 'urgent', priority: -5 });
      await b.claim(urgent.id, 'carol', 30);
      b.clock.advance(S);
      const routine = await b.post('alice', { title: 'routine', priority: 5 });
      b.clock.advance(30_000);
      // Nothing has moved the lapsed claim yet: this claim-next must, and then take it before the routine task.
      assert.equal((await b.call(op.claimNext, { agent: 'bob' }))?.task.id, urgent.id);
      assert.equal((await b.call(op.claimNext, { agent: 'bob' }))?.task.id, routine.id);
    });

    test('claim-next grants a fresh claim with fence, lease_until and reclaimed: false', async () => {
      const b = board();
      const task = await b.post('alice');
      const grant = await b.call(op.claimNext, { agent: 'bob', lease_s: 42 });
      assert.ok(grant);
      assert.equal(grant.task.id, task.id);
      assert.equal(grant.task.state, 'claimed');
      assert.equal(grant.task.claimed_by, 'bob');
      assert.equal(grant.fence, 1);
      assert.equal(grant.reclaimed, false);
      assert.equal(grant.lease_until, new Date(b.clock.now() + 42 * S).toISOString());
    });

    test('the kinds filter takes only tasks of those kinds', async () => {
      const b = board();
      await b.post('alice', { kind: 'bug', priority: -1 });
      const review = await b.post('alice', { kind: 'review' });
      const note = await b.post('alice', { kind: 'note' });
      assert.equal((await b.call(op.claimNext, { agent: 'bob', kinds: ['review'] }))?.task.id, review.id);
      assert.equal((await b.call(op.claimNext, { agent: 'bob', kinds: ['review', 'note'] }))?.task.id, note.id);
      assert.equal(await b.call(op.claimNext, { agent: 'bob', kinds: ['review', 'note'] }), null);
    });

    test('the labels filter takes only tasks carrying one of those labels', async () => {
      const b = board();
      await b.post('alice', { labels: ['backend'], priority: -1 });
      const ui = await b.post('alice', { labels: ['ui', 'css'] });
      assert.equal((await b.call(op.claimNext, { agent: 'bob', labels: ['css', 'docs'] }))?.task.id, ui.id);
      assert.equal(await b.call(op.claimNext, { agent: 'bob', labels: ['css', 'docs'] }), null);
    });

    test('claim-next answers null (204) when nothing is claimable: empty board, claimed tasks, other boards, private to others', async () => {
      const b = board();
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      const held = await b.post('alice');
      await b.claim(held.id, 'carol');
      await b.post('alice', { board: 'elsewhere' });
      await b.post('alice', { for: 'carol' });
      const gone = await b.post('alice', { ttl_s: 1 });
      b.clock.advance(S);
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      assert.equal((await b.show(gone.id)).state, 'expired');
      assert.equal((await b.call(op.claimNext, { agent: 'bob', board: 'elsewhere' }))?.task.board, 'elsewhere');
    });

    test('claim-next never hands the same task to two agents racing for it', async () => {
      const b = board();
      const posted = [];
      for (let i = 0; i < 3; i++) posted.push((await b.post('alice')).id);
      const grants = await Promise.all(['a1', 'a2', 'a3', 'a4', 'a5'].map((agent) => b.call(op.claimNext, { agent })));
      const won = grants.flatMap((g) => (g ? [g.task.id] : []));
      assert.equal(won.length, 3);
      assert.deepEqual(new Set(won), new Set(posted));
    });
  });
}
