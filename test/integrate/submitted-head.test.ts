/**
 * SPEC §15 "What is merged is what was submitted": every try merges a head a submit recorded — the change
 * record's, or the one its follow-up's submit recorded — never the branch's current tip; a recorded head
 * that is gone blocks the task until a new submit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx } from '../../src/core/operation.js';
import { operations as op } from '../../src/core/operations.js';
import { GitRepos } from '../../src/git/git-repos.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { git, type TestRepo, testRepo } from '../git/repo.js';
import { harness, makeSqliteStore, tempDir } from '../support/ctx.js';

/** A core with git, as the daemon has: a completed submit from a work tree records its change record. */
async function board() {
  const h = await harness(makeSqliteStore);
  const ctx: Ctx = { ...h.ctx, git: new GitRepos() };
  const call = <O>(o: { name: string } & Parameters<typeof invoke>[0], input: unknown) =>
    invoke(o, ctx, input) as Promise<O>;
  return { h, ctx, call };
}

type Board = Awaited<ReturnType<typeof board>>;

/** Claims `task_id` from `wt`, runs `work` there (commits), submits it completed: answers the recorded head. */
async function doTask(b: Board, wt: string, agent: string, task_id: string, work: () => void) {
  const grant = await invoke(op.claimTask, b.ctx, { task_id, agent, worktree: wt });
  work();
  await invoke(op.submitResult, b.ctx, { task_id, claim_id: grant.claim_id, status: 'completed', agent, worktree: wt });
  return (await invoke(op.showTask, b.ctx, { task_id })).task;
}

const drain = async (i: Integrator) => {
  while ((await i.turn()).progressed > 0);
};

const integrator = (b: Board, r: TestRepo) =>
  new Integrator(boardInProcess(b.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: 'test integrator',
  });

const stateOf = async (b: Board, task_id: string) => (await invoke(op.showTask, b.ctx, { task_id })).task.integration;

test("a conflict is merged again with the head its follow-up's submit recorded, never the branch's later unsubmitted commits", async () => {
  const b = await board();
  const r = testRepo({ 'src/a.ts': 'one\n' });
  const wt = r.worktree('feat/a');
  const { task } = await invoke(op.createTask, b.ctx, { agent: 'planner', title: 'change a' });
  await doTask(b, wt, 'codex#1', task.id, () => r.commit(wt, { 'src/a.ts': 'two\n' }, 'work'));
  const person = r.commit(r.main, { 'src/a.ts': 'three\n', 'src/p.ts': 'person\n' }, 'a person changes a');
  const i = integrator(b, r);
  await drain(i);
  const conflict = await stateOf(b, task.id);
  assert.equal(conflict?.state, 'conflict');
  const followup = conflict?.followup;
  assert.ok(followup);

  // Unsubmitted work on the branch is never merged: the conflict is not tried again.
  r.commit(wt, { 'src/wip.ts': 'DO NOT MERGE\n' }, 'wip');
  await drain(i);
  assert.equal((await stateOf(b, task.id))?.state, 'conflict');
  assert.equal(r.rev('main'), person);

  // The follow-up: merge main, resolve, commit, submit. Then more unsubmitted work lands on the branch.
  const done = await doTask(b, wt, 'codex#1', followup, () => {
    git(wt, 'merge', '-q', 'main', '-m', 'merge main', '-X', 'theirs');
    r.commit(wt, { 'src/a.ts': 'resolved\n' }, 'resolve');
  });
  const resolved = r.rev('feat/a');
  // Its change record counts only its own commits: not the person's commit it merged from main.
  const shas = done.change?.commits.map((c) => c.sha) ?? [];
  assert.ok(!shas.includes(person), 'the follow-up does not claim the target’s commits');
  assert.ok(shas.includes(resolved));
  assert.ok(!(done.change?.paths ?? []).includes('src/p.ts'), (done.change?.paths ?? []).join(','));
  r.commit(wt, { 'src/later.ts': 'DO NOT MERGE either\n' }, 'later wip');

  await drain(i);
  assert.equal((await stateOf(b, task.id))?.state, 'merged');
  assert.equal(git(r.main, 'show', 'main:src/a.ts'), 'resolved');
  assert.ok(r.history('main').includes(resolved));
  assert.equal(git(r.main, 'ls-tree', '--name-only', 'main', 'src/later.ts'), '', 'the later commit stays out');
});

test('a retried task whose recorded head is gone from the repository is blocked, and a rewritten branch tip is never merged', async () => {
  const b = await board();
  const r = testRepo({ 'src/a.ts': 'one\n' });
  const wt = r.worktree('feat/a');
  const { task } = await invoke(op.createTask, b.ctx, { agent: 'planner', title: 'change a' });
  await doTask(b, wt, 'codex#1', task.id, () => r.commit(wt, { 'src/a.ts': 'two\n' }, 'work'));
  const tip = r.commit(r.main, { 'src/a.ts': 'three\n' }, 'a person changes a');
  const i = integrator(b, r);
  await drain(i);
  assert.equal((await stateOf(b, task.id))?.state, 'conflict');
  // The branch is rewritten at an unrelated commit and the recorded head garbage-collected.
  git(wt, 'reset', '-q', '--hard', 'main');
  r.commit(wt, { 'src/other.ts': 'rewritten\n' }, 'rewritten');
  git(r.main, 'reflog', 'expire', '--expire=now', '--all');
  git(r.main, 'gc', '-q', '--prune=now');
  await invoke(op.retryIntegration, b.ctx, { task_id: task.id });
  await drain(i);
  const shown = await stateOf(b, task.id);
  assert.equal(shown?.state, 'blocked');
  assert.match(shown?.reason ?? '', /not in the repository/);
  assert.equal(r.rev('main'), tip, 'nothing was merged');
});
