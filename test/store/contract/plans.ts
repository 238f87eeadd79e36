/** SPEC §11 on every store: a plan in one request — all or nothing, ordered by its edges, idempotent by key. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Task } from '../../../src/core/model.js';
import type { MakeStore } from '../../support/ctx.js';
import { freshBoard, op, S } from './board.js';
import { written } from './deps.js';

export function plansContract(make: MakeStore): void {
  describe('plans (SPEC §11)', () => {
    const board = freshBoard(make);

    const plan = (over: Record<string, unknown> = {}) => ({
      agent: 'planner',
      tasks: [
        { ref: 'epic', title: 'ship search' },
        { ref: 'schema', title: 'add the index', parent: 'epic' },
        { ref: 'api', title: 'expose /search', parent: 'epic', blocked_by: ['schema'] },
        { ref: 'ui', title: 'search box', parent: 'epic', blocked_by: ['api', 'schema'], priority: -1 },
      ],
      ...over,
    });

    test('a plan creates every task with its edges in one call and answers them by ref', async () => {
      const b = board();
      const out = await b.call(op.postPlan, plan());
      assert.equal(out.created, true);
      const t = out.tasks as Record<string, Task>;
      assert.deepEqual(Object.keys(t).sort(), ['api', 'epic', 'schema', 'ui']);
      assert.deepEqual(t.api!.blocked_by, [t.schema!.id]);
      assert.deepEqual(t.ui!.blocked_by, [t.api!.id, t.schema!.id]);
      assert.deepEqual(t.ui!.blocked, [
        { id: t.api!.id, state: 'queued' },
        { id: t.schema!.id, state: 'queued' },
      ]);
      assert.equal(t.schema!.ready, true);
      assert.equal(t.schema!.parent, t.epic!.id);
      assert.deepEqual(t.epic!.children, { total: 3, completed: 0 });
      for (const task of Object.values(t)) assert.deepEqual(await b.show(task.id), task);
      // Drained in dependency order: ui (priority -1) never before api, api never before schema.
      const order: string[] = [];
      for (;;) {
        const g = await b.call(op.claimNext, { agent: 'w' });
        if (!g) break;
        order.push(g.task.id);
        await b.call(op.submitResult, { task_id: g.task.id, claim_id: g.claim_id, status: 'completed' });
      }
      assert.equal(order.length, 4);
      assert.ok(order.indexOf(t.schema!.id) < order.indexOf(t.api!.id));
      assert.ok(order.indexOf(t.api!.id) < order.indexOf(t.ui!.id));
      assert.deepEqual((await b.show(t.epic!.id)).children, { total: 3, completed: 3 });
    });

    test('a plan may name existing tasks by id as blockers and parent', async () => {
      const b = board();
      const base = await b.post('alice', { title: 'existing' });
      const out = await b.call(op.postPlan, {
        agent: 'planner',
        tasks: [{ ref: 'next', title: 'after it', blocked_by: [base.id], parent: `#${base.id}` }],
      });
      const next = (out.tasks as Record<string, Task>).next!;
      assert.deepEqual(next.blocked_by, [base.id]);
      assert.equal(next.parent, base.id);
      assert.deepEqual((await b.show(base.id)).children, { total: 1, completed: 0 });
    });

    test('a cycle through a plan is dependency_cycle naming it, and no task of the plan is written', async () => {
      const b = board();
      const before = await written(b);
      const err = await b.fail(op.postPlan, {
        agent: 'planner',
        tasks: [
          { ref: 'a', title: 'a', blocked_by: ['c'] },
          { ref: 'b', title: 'b', blocked_by: ['a'] },
          { ref: 'c', title: 'c', blocked_by: ['b'] },
          { ref: 'd', title: 'd' },
        ],
      });
      assert.equal(err.code, 'dependency_cycle');
      const cycle = err.details.cycle as string[];
      assert.equal(cycle.length, 4);
      assert.equal(cycle[0], cycle[3]);
      assert.deepEqual(new Set(cycle), new Set(['a', 'b', 'c']));
      assert.equal(await written(b), before);
    });

    test('a plan naming a missing task is not_found naming it, and no task of the plan is written', async () => {
      const b = board();
      await b.post('alice');
      const before = await written(b);
      const err = await b.fail(
        op.postPlan,
        plan({ tasks: [...plan().tasks, { ref: 'late', title: 'late', blocked_by: ['ui', 'nosuch12'] }] }),
      );
      assert.equal(err.code, 'not_found');
      assert.equal(err.details.task_id, 'nosuch12');
      assert.equal(await written(b), before);
      const dup = await b.fail(op.postPlan, {
        agent: 'p',
        tasks: [
          { ref: 'x', title: 'x' },
          { ref: 'x', title: 'y' },
        ],
      });
      assert.equal(dup.code, 'invalid_request');
      assert.equal(await written(b), before);
    });

    test('a plan retried with the same key answers the same tasks; another payload under that key is idempotency_conflict', async () => {
      const b = board();
      const first = await b.call(op.postPlan, plan({ idempotency_key: 'search-v1' }));
      const mid = await written(b);
      b.clock.advance(S);
      const again = await b.call(op.postPlan, plan({ idempotency_key: 'search-v1' }));
      assert.equal(again.created, false);
      assert.deepEqual(
        Object.fromEntries(Object.entries(again.tasks).map(([r, t]) => [r, t.id])),
        Object.fromEntries(Object.entries(first.tasks).map(([r, t]) => [r, t.id])),
      );
      assert.equal(await written(b), mid);
      const changed = plan({ idempotency_key: 'search-v1' });
      (changed.tasks as { title: string }[])[0]!.title = 'ship better search';
      const err = await b.fail(op.postPlan, changed);
      assert.equal(err.code, 'idempotency_conflict');
      assert.equal(await written(b), mid);
    });

    test('a plan of 200 tasks is one call; 201 is invalid_request', async () => {
      const b = board();
      const tasks = Array.from({ length: 200 }, (_, i) => ({
        ref: `t${i}`,
        title: `step ${i}`,
        blocked_by: i === 0 ? [] : [`t${i - 1}`, ...(i > 1 ? [`t${i - 2}`] : [])],
      }));
      const out = await b.call(op.postPlan, { agent: 'p', tasks });
      assert.equal(Object.keys(out.tasks).length, 200);
      assert.equal((await b.call(op.inbox, { agent: 'w' })).blocked, 199);
      const err = await b.fail(op.postPlan, { agent: 'p', tasks: [...tasks, { ref: 'extra', title: 'x' }] });
      assert.equal(err.code, 'invalid_request');
    });
  });
}
