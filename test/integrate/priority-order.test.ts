/** SPEC §15 "Priority": tasks are integrated by priority (lower first), then completion order — dependency order always first. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { testRepo } from '../git/repo.js';
import { harness, makeSqliteStore, tempDir } from '../support/ctx.js';

test('the integrator takes tasks by priority, then completion order, and a blocker before its dependent', async () => {
  const h = await harness(makeSqliteStore);
  const r = testRepo();
  const made: Record<string, string> = {};
  const post = async (name: string, priority: number, blocked_by: string[] = []) => {
    const { task } = await h.call(op.createTask, { agent: 'planner', title: name, priority, blocked_by });
    made[name] = task.id;
    return task.id;
  };
  const finish = async (name: string) => {
    const task_id = made[name] ?? '';
    const wt = r.worktree(`feat/${name}`);
    const grant = await h.call(op.claimTask, { task_id, agent: 'codex#1' });
    const head = r.commit(wt, { [`src/${name}.ts`]: `${name}\n` }, name);
    await h.call(op.submitResult, { task_id, claim_id: grant.claim_id, status: 'completed', agent: 'codex#1' });
    await h.call(op.queueIntegration, { task_id, worktree: wt, branch: `feat/${name}`, head });
  };
  const base = await post('base', 5);
  await post('late-urgent', -5);
  await post('plain', 0);
  await post('urgent-dependent', -10, [base]);
  // Completion order: base, plain, urgent-dependent, late-urgent.
  for (const name of ['base', 'plain', 'urgent-dependent', 'late-urgent']) await finish(name);

  const order: string[] = [];
  const i = new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: 'test',
    onResult: (q) => order.push(q.title),
  });
  while ((await i.turn()).progressed > 0);
  // The dependent waits for its blocker whatever its priority; the rest go by priority.
  assert.deepEqual(order, ['late-urgent', 'plain', 'base', 'urgent-dependent']);
});
