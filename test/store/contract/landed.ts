/**
 * SPEC §11 "ready = landed" on every store: a blocker with commits counts once its merge is recorded (by the
 * integrator, or found in the target: `how: contained`); one with none at its completion; a board may keep
 * the old rule (`--ready-on completed`). Dependents say which blocker holds them back and where it stands.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChangeRecord } from '../../../src/core/worktrees/git-port.js';
import type { MakeStore } from '../../support/ctx.js';
import { type Board, freshBoard, op } from './board.js';

const HEAD = 'a'.repeat(40);
const SLOT = 'slot-landedlandedlanded';

const change = (commits: number): ChangeRecord => ({
  worktree: '/repo/wt-b',
  branch: 'feat/b',
  claim_head: 'f'.repeat(40),
  base: 'f'.repeat(40),
  head: HEAD,
  commits: Array.from({ length: commits }, (_, i) => ({ sha: `${i}`.repeat(40).slice(0, 40), subject: `c${i}` })),
  paths: commits ? ['src/b.ts'] : [],
  insertions: commits,
  deletions: 0,
  clean: true,
});

/** Claims `id` and completes it with a change record of `commits` commits (as a submit from a work tree does). */
export async function completeWithCommits(b: Board, id: string, commits = 1, agent = 'worker') {
  const g = await b.claim(id, agent);
  const out = await b.store.submit({
    task_id: id,
    claim_id: g.claim_id,
    status: 'completed',
    result: null,
    result_hash: `h-${id}`,
    change: change(commits),
  });
  assert.equal(out.ok, true);
}

/** Records the integrator's result for `task_id` (taking the board's slot first). */
export async function record(b: Board, task_id: string, state: 'merged' | 'conflict' = 'merged') {
  const slot = await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'integrator', slot_id: SLOT });
  assert.equal(slot.ok, true);
  return b.call(op.recordIntegration, {
    board: 'default',
    slot_id: SLOT,
    task_id,
    state,
    head: HEAD,
    target: 'main',
    ...(state === 'merged' ? { commit: 'c'.repeat(40), how: 'merge' } : { reason: 'src/b.ts' }),
  });
}

const readyEvents = async (b: Board) => (await b.events()).filter((e) => e.type === 'task.ready').map((e) => e.task_id);

export function landedContract(make: MakeStore): void {
  describe('ready = landed (SPEC §11)', () => {
    const board = freshBoard(make);

    test('a dependent waits while its completed blocker is not merged, says so, and is ready in the transaction that records the merge', async () => {
      const b = board();
      const blocker = await b.post('alice', { title: 'logging' });
      const dep = await b.post('alice', { title: 'docs', blocked_by: [blocker.id] });
      await completeWithCommits(b, blocker.id);
      const waiting = { id: blocker.id, state: 'completed', integration: 'pending' };
      const shown = await b.show(dep.id);
      assert.equal(shown.ready, false);
      assert.deepEqual(shown.blocked, [waiting]);
      const err = await b.fail(op.claimTask, { task_id: dep.id, agent: 'bob' });
      assert.equal(err.code, 'blocked');
      assert.deepEqual(err.details.blocked, [waiting]);
      assert.match(err.message, /completed · pending, waiting for merge/);
      assert.equal(await b.call(op.claimNext, { agent: 'bob' }), null);
      const inbox = await b.call(op.inbox, { agent: 'bob' });
      assert.deepEqual(inbox.tasks, []);
      assert.equal(inbox.blocked, 1);
      assert.deepEqual(
        (await b.call(op.listTasks, { blocked: true })).tasks.map((t) => t.id),
        [dep.id],
      );
      assert.deepEqual(await readyEvents(b), []);

      await record(b, blocker.id);
      const events = await b.events();
      const merged = events.findIndex((e) => e.type === 'task.integrated' && e.task_id === blocker.id);
      // Same transaction: the ready event follows the merge that caused it.
      assert.deepEqual([events[merged + 1]?.type, events[merged + 1]?.task_id], ['task.ready', dep.id]);
      const now = await b.show(dep.id);
      assert.equal(now.ready, true);
      assert.deepEqual(now.blocked, []);
      assert.equal((await b.call(op.claimNext, { agent: 'bob' }))?.task.id, dep.id);
    });

    test('a blocker in conflict keeps its dependents blocked, naming the conflict', async () => {
      const b = board();
      const blocker = await b.post('alice');
      const dep = await b.post('alice', { blocked_by: [blocker.id] });
      await completeWithCommits(b, blocker.id);
      await record(b, blocker.id, 'conflict');
      assert.deepEqual((await b.show(dep.id)).blocked, [
        { id: blocker.id, state: 'completed', integration: 'conflict' },
      ]);
      assert.equal((await b.fail(op.claimTask, { task_id: dep.id, agent: 'bob' })).code, 'blocked');
      // The conflict's follow-up is the only thing to claim.
      const next = await b.call(op.claimNext, { agent: 'bob' });
      assert.notEqual(next?.task.id, dep.id);
      assert.deepEqual(await readyEvents(b), []);
    });

    test('a blocker completed with no commits has landed at once', async () => {
      const b = board();
      const blocker = await b.post('alice');
      const dep = await b.post('alice', { blocked_by: [blocker.id] });
      await completeWithCommits(b, blocker.id, 0);
      assert.equal((await b.show(dep.id)).ready, true);
      assert.deepEqual(await readyEvents(b), [dep.id]);
    });

    test('a merge recorded twice counts once: a dependent with another open blocker stays blocked', async () => {
      const b = board();
      const merged = await b.post('alice');
      const open = await b.post('alice');
      const dep = await b.post('alice', { blocked_by: [merged.id, open.id] });
      await completeWithCommits(b, merged.id);
      await record(b, merged.id);
      await record(b, merged.id);
      const shown = await b.show(dep.id);
      assert.equal(shown.ready, false);
      assert.deepEqual(shown.blocked, [{ id: open.id, state: 'queued' }]);
      assert.equal(await b.call(op.claimNext, { agent: 'bob', kinds: ['task'] }).then((g) => g?.task.id), open.id);
    });

    test('a task posted or given a blocker that completed but is not merged waits for it', async () => {
      const b = board();
      const blocker = await b.post('alice');
      await completeWithCommits(b, blocker.id);
      const posted = await b.post('alice', { blocked_by: [blocker.id] });
      const waiting = [{ id: blocker.id, state: 'completed', integration: 'pending' }];
      assert.equal(posted.ready, false);
      assert.deepEqual(posted.blocked, waiting);
      const later = await b.post('alice');
      const added = await b.call(op.setDeps, { task_id: later.id, agent: 'alice', add: [blocker.id] });
      assert.deepEqual(added.task.blocked, waiting);
      const plan = await b.call(op.postPlan, {
        agent: 'alice',
        tasks: [{ ref: 'p', title: 'after', blocked_by: [blocker.id] }],
      });
      assert.deepEqual(plan.tasks.p?.blocked, waiting);
      await record(b, blocker.id);
      assert.deepEqual((await readyEvents(b)).sort(), [posted.id, later.id, plan.tasks.p!.id].sort());
      // Removing a landed blocker changes nothing; a task given a landed one is ready at once.
      const gone = await b.call(op.setDeps, { task_id: later.id, agent: 'alice', remove: [blocker.id] });
      assert.equal(gone.task.ready, true);
      assert.equal((await b.post('alice', { blocked_by: [blocker.id] })).ready, true);
    });

    test('a merge a person made (contained) lands the task once, with task.integrated how: contained', async () => {
      const b = board();
      const blocker = await b.post('alice');
      const dep = await b.post('alice', { blocked_by: [blocker.id] });
      await completeWithCommits(b, blocker.id);
      const other = { task_id: blocker.id, head: 'e'.repeat(40), target: 'main' };
      assert.deepEqual(await b.store.recordContained(other), { recorded: false }, 'not the recorded head');
      const c = { task_id: blocker.id, head: HEAD, target: 'main' };
      assert.deepEqual(await b.store.recordContained(c), { recorded: true });
      assert.deepEqual(await b.store.recordContained(c), { recorded: false });
      const integration = (await b.call(op.showTask, { task_id: blocker.id })).task.integration;
      assert.deepEqual(integration, { state: 'merged', commit: HEAD, target: 'main' });
      const events = await b.events();
      const found = events.filter((e) => e.type === 'task.integrated');
      assert.equal(found.length, 1);
      assert.deepEqual(await readyEvents(b), [dep.id]);
      assert.equal((await b.show(dep.id)).ready, true);
    });

    test('a merge the background look recorded is final: the integrator recording it late adds no second task.integrated and no follow-up', async () => {
      const b = board();
      const blocker = await b.post('alice');
      await completeWithCommits(b, blocker.id);
      const c = { task_id: blocker.id, head: HEAD, target: 'main' };
      assert.deepEqual(await b.store.recordContained(c), { recorded: true });
      // The integrator swapped the target before the look and records after it (as two daemons, or one, can).
      const late = await record(b, blocker.id);
      assert.equal(late.integration.state, 'merged');
      const conflict = await record(b, blocker.id, 'conflict');
      assert.equal(conflict.integration.state, 'merged', 'a merged task does not go back to conflict');
      assert.equal(conflict.followup_id, null, 'no follow-up for work already merged');
      const found = (await b.events()).filter((e) => e.type === 'task.integrated');
      assert.deepEqual(
        found.map((e) => e.task_id),
        [blocker.id],
      );
      // The look's record stands: the head it found in the target.
      assert.equal((await b.call(op.showTask, { task_id: blocker.id })).task.integration?.commit, HEAD);
    });

    test('a head found in the target while an integrator holds the board’s slot is left to that integrator', async () => {
      const b = board();
      const blocker = await b.post('alice');
      await completeWithCommits(b, blocker.id);
      const slot = await b.call(op.takeIntegrationSlot, { board: 'default', holder: 'integrator', slot_id: SLOT });
      assert.equal(slot.ok, true);
      const c = { task_id: blocker.id, head: HEAD, target: 'main' };
      assert.deepEqual(await b.store.recordContained(c), { recorded: false }, "its merge commit is the integrator's");
      await record(b, blocker.id);
      const found = (await b.events()).filter((e) => e.type === 'task.integrated');
      assert.equal(found.length, 1);
      assert.equal((await b.call(op.showTask, { task_id: blocker.id })).task.integration?.commit, 'c'.repeat(40));
      // Released, the look records a person's merge again.
      await b.call(op.releaseIntegrationSlot, { board: 'default', slot_id: SLOT });
      const other = await b.post('alice');
      await completeWithCommits(b, other.id);
      assert.deepEqual(await b.store.recordContained({ ...c, task_id: other.id }), { recorded: true });
    });

    test('a board that keeps the old rule (ready-on completed) readies dependents at completion; switching to it lands completed work', async () => {
      const b = board();
      const early = await b.post('alice');
      const earlyDep = await b.post('alice', { blocked_by: [early.id] });
      await completeWithCommits(b, early.id);
      assert.equal((await b.show(earlyDep.id)).ready, false);
      const set = await b.store.setBoardRepo(
        { board: 'default', repo: '/repo', target: 'main' },
        { replaceTarget: true, readyOn: 'completed' },
      );
      assert.equal(set.ready_on, 'completed');
      assert.equal((await b.show(earlyDep.id)).ready, true, 'switching lands the completed work');
      const blocker = await b.post('alice');
      const dep = await b.post('alice', { blocked_by: [blocker.id] });
      await completeWithCommits(b, blocker.id);
      assert.equal((await b.show(dep.id)).ready, true);
      // Its merge later counts nothing twice.
      const two = await b.post('alice', { blocked_by: [blocker.id, (await b.post('alice')).id] });
      await record(b, blocker.id);
      assert.equal((await b.show(two.id)).ready, false);
      // First sight of a repository (no --ready-on) keeps what the board said.
      const again = await b.store.setBoardRepo(
        { board: 'default', repo: '/repo', target: 'main' },
        { replaceTarget: false },
      );
      assert.equal(again.ready_on, 'completed');
    });

    test('a blocker merging while its dependent is claimed by concurrent claimers: never won before the merge, won once after', async () => {
      const b = board();
      for (let round = 0; round < 4; round++) {
        const blocker = await b.post('alice', { title: `blocker ${round}` });
        const dep = await b.post('alice', { title: `dependent ${round}`, blocked_by: [blocker.id] });
        await completeWithCommits(b, blocker.id);
        assert.equal(await b.call(op.claimNext, { agent: 'early' }), null, 'not ready before the merge');
        const claimers = Array.from({ length: 6 }, (_, i) =>
          i % 2 === 0
            ? b.call(op.claimTask, { task_id: dep.id, agent: `racer-${round}-${i}` })
            : b.call(op.claimNext, { agent: `racer-${round}-${i}` }),
        );
        const [merge, ...claims] = await Promise.allSettled([record(b, blocker.id), ...claimers]);
        assert.equal(merge.status, 'fulfilled');
        for (const c of claims) {
          if (c.status === 'rejected') assert.match(String(c.reason.code), /^(blocked|claimed)$/);
        }
        const won = claims.filter((c) => c.status === 'fulfilled' && c.value?.task.id === dep.id);
        assert.ok(won.length <= 1, 'at most one winner');
        const events = await b.events();
        const merged = events.find((e) => e.type === 'task.integrated' && e.task_id === blocker.id)!;
        for (const e of events.filter((x) => x.type === 'task.claimed' && x.task_id === dep.id)) {
          assert.ok(
            e.seq > merged.seq,
            `#${dep.id} was claimed (seq ${e.seq}) before its blocker merged (${merged.seq})`,
          );
        }
        if (won.length === 0) assert.equal((await b.call(op.claimNext, { agent: 'late' }))?.task.id, dep.id);
        else assert.equal((await b.show(dep.id)).state, 'claimed');
      }
    });
  });
}
