import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Task } from '../../../src/core/model.js';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op } from './board.js';

export function listTasksContract(make: MakeStore): void {
  describe('listing tasks', () => {
    const board = freshBoard(make);

    test('pages newest first with a cursor until next_cursor is null, never repeating or skipping a task', async () => {
      const b = board();
      const posted: string[] = [];
      for (let i = 0; i < 8; i++) {
        posted.push((await b.post('alice', { title: `t${i}` })).id);
        // Pairs share a millisecond, so the cursor must break ties.
        if (i % 2 === 1) b.clock.advance(1);
      }
      const seen: Task[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await b.call(op.listTasks, { limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.tasks);
        pages++;
        if (page.next_cursor === null) break;
        assert.equal(page.tasks.length, 3);
        cursor = page.next_cursor;
      }
      assert.equal(pages, 3);
      assert.equal(seen.length, 8);
      assert.deepEqual(new Set(seen.map((t) => t.id)), new Set(posted));
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.created_at >= seen[i]!.created_at, 'newest first');
    });

    test('a page that holds exactly the rest has next_cursor null', async () => {
      const b = board();
      for (let i = 0; i < 3; i++) await b.post('alice');
      assert.equal((await b.call(op.listTasks, { limit: 3 })).next_cursor, null);
    });

    test('filters by board, state, kind, label and what the agent may see', async () => {
      const b = board();
      const bug = await b.post('alice', { kind: 'bug', labels: ['ui'] });
      const task = await b.post('alice', { labels: ['backend', 'ui'] });
      const other = await b.post('alice', { board: 'elsewhere' });
      const secret = await b.post('alice', { for: 'bob' });
      await b.claim(task.id, 'carol');
      const ids = async (q: Record<string, unknown>) => new Set((await b.call(op.listTasks, q)).tasks.map((t) => t.id));
      assert.deepEqual(await ids({}), new Set([bug.id, task.id, other.id, secret.id]));
      assert.deepEqual(await ids({ board: 'default' }), new Set([bug.id, task.id, secret.id]));
      assert.deepEqual(await ids({ board: 'elsewhere' }), new Set([other.id]));
      assert.deepEqual(await ids({ state: 'claimed' }), new Set([task.id]));
      assert.deepEqual(await ids({ kind: 'bug' }), new Set([bug.id]));
      assert.deepEqual(await ids({ label: 'ui' }), new Set([bug.id, task.id]));
      assert.deepEqual(await ids({ label: 'backend', state: 'queued' }), new Set());
      assert.deepEqual(await ids({ agent: 'carol' }), new Set([bug.id, task.id, other.id]));
      assert.deepEqual(await ids({ agent: 'bob', board: 'default' }), new Set([bug.id, task.id, secret.id]));
      assert.deepEqual(await ids({ agent: 'alice', board: 'default' }), new Set([bug.id, task.id, secret.id]));
    });
  });
}
