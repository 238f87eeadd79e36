/**
 * SPEC §15 "The target's work tree is never left behind": an integrator killed after it moved a
 * checked-out target and before it updated that work tree leaves the index and files at the old tip. The
 * next turn brings them to the branch's tip before anything else — so a person's next commit there cannot
 * revert merged work — or, when that would overwrite a person's change, reports it blocked and changes nothing.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import { Integrator, mergeMessage } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { git, type TestRepo, testRepo } from '../git/repo.js';
import { type Harness, harness, makeSqliteStore, tempDir } from '../support/ctx.js';

async function queued(h: Harness, r: TestRepo, branch: string, files: Record<string, string>) {
  const wt = r.worktree(branch);
  const { task } = await h.call(op.createTask, { agent: 'planner', title: `work on ${branch}` });
  const grant = await h.call(op.claimTask, { task_id: task.id, agent: 'codex#1' });
  const head = r.commit(wt, files, `work of #${task.id}`);
  await h.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed', agent: 'codex#1' });
  await h.call(op.queueIntegration, { task_id: task.id, worktree: wt, branch, head });
  return { id: task.id, head, title: `work on ${branch}` };
}

/** The instant after an integrator's swap of a checked-out main, before its read-tree: then kill -9. */
function crashAfterSwap(r: TestRepo, task: { id: string; head: string; title: string }) {
  const old = r.rev('main');
  git(r.main, 'update-ref', '-m', mergeMessage(task.id, task.title), 'refs/heads/main', task.head, old);
  return old;
}

const drain = async (i: Integrator) => {
  while ((await i.turn()).progressed > 0);
};

const integrator = (h: Harness, r: TestRepo, onRepair?: (x: { to: string }) => void) =>
  new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: 'the next integrator',
    onRepair,
  });

test("the next turn brings a checked-out target left at the old tip by a crash up to date, so a person's next commit keeps the merged work", async () => {
  const h = await harness(makeSqliteStore);
  const r = testRepo();
  const t = await queued(h, r, 'feat/b', { 'src/b.ts': 'b\n' });
  crashAfterSwap(r, t);
  assert.match(git(r.main, 'status', '--porcelain'), /^D {2}src\/b\.ts$/m, 'the crash left a staged deletion');

  const repaired: string[] = [];
  await drain(integrator(h, r, (x) => repaired.push(x.to)));
  assert.equal((await h.call(op.showTask, { task_id: t.id })).task.integration?.state, 'merged');
  assert.equal(git(r.main, 'status', '--porcelain'), '', 'the work tree is at the recorded tip');
  assert.deepEqual(repaired, [t.head]);
  assert.equal(readFileSync(join(r.main, 'src/b.ts'), 'utf8'), 'b\n');

  // The person's next ordinary commit keeps the merged file.
  writeFileSync(join(r.main, 'notes.md'), 'mine\n');
  git(r.main, 'add', 'notes.md');
  git(r.main, 'commit', '-q', '-m', 'a person commits');
  assert.equal(git(r.main, 'show', 'main:src/b.ts'), 'b');
});

test('a left-behind target whose update would overwrite a person’s change is reported blocked and not touched', async () => {
  const h = await harness(makeSqliteStore);
  const r = testRepo({ 'src/a.ts': 'one\n' });
  const t = await queued(h, r, 'feat/a', { 'src/a.ts': 'two\n' });
  const other = await queued(h, r, 'feat/c', { 'src/c.ts': 'c\n' });
  crashAfterSwap(r, t);
  // The person edits the stale file in the work tree (not staged) before any integrator runs again.
  writeFileSync(join(r.main, 'src/a.ts'), 'the person’s edit\n');
  const tip = r.rev('main');
  await drain(integrator(h, r));
  const shown = (await h.call(op.showTask, { task_id: other.id })).task.integration;
  assert.equal(shown?.state, 'blocked');
  assert.match(shown?.reason ?? '', /left at .* by an integrator that stopped/);
  assert.equal(r.rev('main'), tip, 'nothing merged over a stale work tree');
  assert.equal(readFileSync(join(r.main, 'src/a.ts'), 'utf8'), 'the person’s edit\n');
});
