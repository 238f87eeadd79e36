/** SPEC §15: the integration queue's board state — the fenced slot, results, follow-ups — on every store. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op, S } from './board.js';

const HEAD = 'a'.repeat(40);
const MOVED = 'b'.repeat(40);
const MERGED = 'c'.repeat(40);
const SLOT_A = 'slot-aaaaaaaaaaaaaaaa';
const SLOT_B = 'slot-bbbbbbbbbbbbbbbb';

/** A task worked and completed by `agent`, queued for integration with HEAD. */
async function completedWork(b: Board, agent = 'codex#1a2b', title = 'parse dates') {
  const task = await b.post('planner', { title });
  const grant = await b.claim(task.id, agent);
  await b.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed', agent });
  await b.call(op.queueIntegration, { task_id: task.id, worktree: '/repo/wt-b', branch: 'feat/b', head: HEAD });
  return task;
}

const integration = async (b: Board, task_id: string) => (await b.call(op.showTask, { task_id })).task.integration;

export function integrationContract(make: MakeStore): void {
  describe('the integration queue', () => {
    const board = freshBoard(make);

    test('a queued task is pending in its JSON and the queue; queueing it again changes nothing', async () => {
      const b = board();
      const task = await completedWork(b);
      assert.deepEqual(await integration(b, task.id), { state: 'pending' });
      const again = await b.call(op.queueIntegration, { task_id: task.id, head: MOVED });
      assert.equal(again.created, false);
      const { queue } = await b.call(op.integrationQueue, { board: 'default' });
      assert.deepEqual(
        queue.map((q) => [q.task_id, q.state, q.agent, q.branch, q.head]),
        [[task.id, 'pending', 'codex#1a2b', 'feat/b', HEAD]],
      );
      const other = await b.post('planner');
      assert.deepEqual(await integration(b, other.id), { state: 'none' });
    });

    test('a task completed with no commits says integration {state: "none"} at its submit, its replay and show; one queued says pending', async () => {
      const b = board();
      const task = await b.post('planner');
      const grant = await b.claim(task.id, 'codex#1a2b');
      const submit = { task_id: task.id, claim_id: grant.claim_id, status: 'completed' } as const;
      const first = await b.call(op.submitResult, submit);
      assert.deepEqual(first.task.integration, { state: 'none' });
      assert.deepEqual((await b.call(op.submitResult, submit)).task.integration, { state: 'none' }, 'the replay');
      assert.deepEqual(await integration(b, task.id), { state: 'none' });
      const failed = await b.post('planner');
      const g2 = await b.claim(failed.id, 'codex#1a2b');
      const out = await b.call(op.submitResult, { task_id: failed.id, claim_id: g2.claim_id, status: 'failed' });
      assert.deepEqual(out.task.integration, { state: 'none' });
      const queued = await completedWork(b);
      assert.deepEqual(await integration(b, queued.id), { state: 'pending' });
    });

    test('only a completed task enters the queue', async () => {
      const b = board();
      const task = await b.post('planner');
      const err = await b.fail(op.queueIntegration, { task_id: task.id, head: HEAD });
      assert.equal(err.code, 'not_claimable');
      assert.deepEqual((await b.call(op.integrationQueue, { board: 'default' })).queue, []);
    });

    test('the slot is exclusive: a second integrator learns the holder, takes it once the lease lapses, and the first can record nothing', async () => {
      const b = board();
      const task = await completedWork(b);
      const a = await b.call(op.takeIntegrationSlot, {
        board: 'default',
        holder: 'integrator A',
        slot_id: SLOT_A,
        lease_s: 60,
      });
      assert.equal(a.ok, true);
      const lost = await b.call(op.takeIntegrationSlot, {
        board: 'default',
        holder: 'integrator B',
        slot_id: SLOT_B,
        lease_s: 60,
      });
      assert.deepEqual(lost, { ok: false, holder: 'integrator A', lease_until: a.lease_until });
      const renewed = await b.call(op.takeIntegrationSlot, {
        board: 'default',
        holder: 'integrator A',
        slot_id: SLOT_A,
        lease_s: 60,
      });
      assert.equal(renewed.ok, true);

      b.clock.advance(61 * S);
      const took = await b.call(op.takeIntegrationSlot, {
        board: 'default',
        holder: 'integrator B',
        slot_id: SLOT_B,
        lease_s: 60,
      });
      assert.equal(took.ok, true);
      const stale = await b.fail(op.recordIntegration, {
        board: 'default',
        slot_id: SLOT_A,
        task_id: task.id,
        state: 'merged',
        commit: MERGED,
        head: HEAD,
        target: 'main',
      });
      assert.equal(stale.code, 'stale_claim');
      assert.deepEqual(await integration(b, task.id), { state: 'pending' });
      assert.deepEqual(await b.call(op.releaseIntegrationSlot, { board: 'default', slot_id: SLOT_A }), {
        released: false,
      });
      assert.deepEqual(await b.call(op.releaseIntegrationSlot, { board: 'default', slot_id: SLOT_B }), {
        released: true,
      });
      const free = await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'integrator A', slot_id: SLOT_A });
      assert.equal(free.ok, true);
    });

    test("a window's event (the tasks checked together, in order) is appended only by the slot's live holder", async () => {
      const b = board();
      const one = await completedWork(b, 'codex#1a2b', 'one');
      const two = await completedWork(b, 'codex#1a2b', 'two');
      const window = { board: 'default', slot_id: SLOT_A, target: 'main', tasks: [two.id, one.id], size: 3 };
      assert.deepEqual(await b.call(op.recordIntegrationWindow, window), { recorded: false }, 'no slot held');
      await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'A', slot_id: SLOT_A, lease_s: 60 });
      assert.deepEqual(await b.call(op.recordIntegrationWindow, { ...window, lane: 2 }), { recorded: true });
      const { events } = await b.call(op.listEvents, { board: 'default', limit: 1000 });
      const told = events.filter((e) => e.type === 'integration.window');
      assert.deepEqual(
        told.map((e) => [e.task_id, e.agent, e.data]),
        [[null, 'coord', { target: 'main', tasks: [two.id, one.id], size: 3, lane: 2 }]],
      );
      b.clock.advance(61 * S);
      assert.deepEqual(await b.call(op.recordIntegrationWindow, window), { recorded: false }, 'the lease lapsed');
    });

    test('a conflict records the paths, a note and a follow-up task for the agent who did the work', async () => {
      const b = board();
      const task = await completedWork(b);
      await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'A', slot_id: SLOT_A });
      const out = await b.call(op.recordIntegration, {
        board: 'default',
        slot_id: SLOT_A,
        task_id: task.id,
        state: 'conflict',
        reason: 'src/a.ts',
        head: HEAD,
        target: 'main',
        note: 'conflicts with main in src/a.ts',
        followup: {
          for: 'codex#1a2b',
          title: `resolve the conflicts of #${task.id} with main: src/a.ts`,
          body: 'merge main',
        },
      });
      assert.ok(out.followup_id);
      const conflict = { state: 'conflict', reason: 'src/a.ts', target: 'main', followup: out.followup_id };
      assert.deepEqual(out.integration, conflict);
      const followup = await b.show(out.followup_id);
      assert.equal(followup.for, 'codex#1a2b');
      assert.equal(followup.state, 'queued');
      assert.match(followup.title, /resolve the conflicts of #\w+ with main: src\/a\.ts/);
      const shown = (await b.call(op.showTask, { task_id: task.id })).task;
      assert.deepEqual(shown.integration, conflict);
      assert.deepEqual(
        shown.notes?.map((n) => [n.agent, n.text]),
        [['coord', 'conflicts with main in src/a.ts']],
      );
      const listed = await b.call(op.listTasks, { integration: 'conflict' });
      assert.deepEqual(
        listed.tasks.map((t) => t.id),
        [task.id],
      );
      const events = (await b.events()).filter((e) => e.type === 'task.integration');
      assert.deepEqual(
        events.map((e) => e.task_id),
        [task.id],
      );
      // Retried by a person: pending again, its queue row ready to be taken.
      assert.deepEqual((await b.call(op.retryIntegration, { task_id: task.id })).integration, {
        state: 'pending',
        target: 'main',
      });
    });

    test("a follow-up's queued head goes to the task it resolves, which is pending again with it; the follow-up is not queued", async () => {
      const b = board();
      const task = await completedWork(b);
      await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'A', slot_id: SLOT_A });
      const out = await b.call(op.recordIntegration, {
        board: 'default',
        slot_id: SLOT_A,
        task_id: task.id,
        state: 'check_failed',
        reason: 'tests failed',
        head: HEAD,
        target: 'main',
        followup: { for: 'codex#1a2b', title: `fix the check of #${task.id}`, body: 'fix it' },
      });
      const followup = out.followup_id ?? '';
      const grant = await b.claim(followup, 'codex#1a2b');
      await b.call(op.submitResult, {
        task_id: followup,
        claim_id: grant.claim_id,
        status: 'completed',
        agent: 'codex#1a2b',
      });
      const carried = await b.call(op.queueIntegration, {
        task_id: followup,
        worktree: '/repo/wt-b',
        branch: 'feat/b',
        head: MOVED,
      });
      assert.equal(carried.created, false);
      const { queue } = await b.call(op.integrationQueue, { board: 'default' });
      assert.deepEqual(
        queue.map((q) => [q.task_id, q.state, q.head, q.tried_head]),
        [[task.id, 'pending', MOVED, HEAD]],
      );
    });

    test('a merge is recorded once as merged with its commit and a task.integrated event, and leaves the queue', async () => {
      const b = board();
      const task = await completedWork(b);
      await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'A', slot_id: SLOT_A });
      await b.call(op.recordIntegration, {
        board: 'default',
        slot_id: SLOT_A,
        task_id: task.id,
        state: 'merged',
        commit: MERGED,
        head: HEAD,
        target: 'main',
        how: 'merge',
      });
      assert.deepEqual(await integration(b, task.id), { state: 'merged', commit: MERGED, target: 'main' });
      assert.deepEqual((await b.call(op.integrationQueue, { board: 'default' })).queue, []);
      const integrated = (await b.events()).filter((e) => e.type === 'task.integrated');
      assert.equal(integrated.length, 1);
      assert.deepEqual(
        (await b.call(op.listTasks, { integration: 'merged' })).tasks.map((t) => t.id),
        [task.id],
      );
      const retry = await b.fail(op.retryIntegration, { task_id: task.id });
      assert.equal(retry.code, 'not_claimable');
    });

    test('a merge held for review waits until approved, and the approval is an event naming who approved; approving a task not in the queue is not_found', async () => {
      const b = board();
      const task = await completedWork(b);
      await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'A', slot_id: SLOT_A });
      await b.call(op.recordIntegration, {
        board: 'default',
        slot_id: SLOT_A,
        task_id: task.id,
        state: 'awaiting_review',
        head: HEAD,
        target: 'main',
      });
      const before = (await b.call(op.integrationQueue, { board: 'default' })).queue[0];
      assert.equal(before?.approved, false);
      assert.equal((await b.events()).filter((e) => e.type === 'task.approved').length, 0);
      assert.deepEqual((await b.call(op.approveIntegration, { task_id: task.id, agent: 'alice' })).integration, {
        state: 'awaiting_review',
        target: 'main',
        approved: true,
      });
      const after = (await b.call(op.integrationQueue, { board: 'default' })).queue[0];
      assert.equal(after?.approved, true);
      const approved = (await b.events()).filter((e) => e.type === 'task.approved');
      assert.equal(approved.length, 1);
      assert.equal(approved[0]?.agent, 'alice');
      assert.equal(approved[0]?.task_id, task.id);
      const full = (await b.call(op.listEvents, { limit: 1000 })).events.find((e) => e.type === 'task.approved');
      assert.deepEqual(full?.data, { state: 'awaiting_review', target: 'main' });
      // Task JSON says so too: a view shows the approval before the integrator runs.
      assert.equal((await b.call(op.showTask, { task_id: task.id })).task.integration?.approved, true);
      const other = await b.post('planner');
      assert.equal((await b.fail(op.approveIntegration, { task_id: other.id })).code, 'not_found');
    });

    test('the queue lists tasks in completion order with their blockers', async () => {
      const b = board();
      const first = await completedWork(b, 'a', 'first');
      const blocker = await b.post('planner', { title: 'blocker' });
      const dependent = await b.post('planner', { title: 'dependent', blocked_by: [blocker.id] });
      const g1 = await b.claim(blocker.id, 'b');
      await b.call(op.submitResult, { task_id: blocker.id, claim_id: g1.claim_id, status: 'completed', agent: 'b' });
      const g2 = await b.claim(dependent.id, 'c');
      await b.call(op.submitResult, { task_id: dependent.id, claim_id: g2.claim_id, status: 'completed', agent: 'c' });
      await b.call(op.queueIntegration, { task_id: dependent.id, head: MOVED });
      await b.call(op.queueIntegration, { task_id: blocker.id, head: MERGED });
      const { queue } = await b.call(op.integrationQueue, { board: 'default' });
      assert.deepEqual(
        queue.map((q) => [q.task_id, q.blocked_by]),
        [
          [first.id, []],
          [dependent.id, [blocker.id]],
          [blocker.id, []],
        ],
      );
    });
  });
}
