/**
 * SPEC §15 "Flaky checks": `--check-retries K` runs a failing check again up to K times before
 * check_failed; a check that passed on a retry is recorded (`integration.flaky: true`, `flaky: true` in
 * task.integrated) and counted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { operations as op } from '../../src/core/operations.js';
import { Integrator } from '../../src/git/integrator.js';
import { boardInProcess } from '../../src/server/integrate/board-in-process.js';
import { type TestRepo, testRepo } from '../git/repo.js';
import { type Harness, harness, makeSqliteStore, tempDir } from '../support/ctx.js';

async function queued(h: Harness, r: TestRepo, name: string) {
  const wt = r.worktree(`feat/${name}`);
  const { task } = await h.call(op.createTask, { agent: 'planner', title: `add ${name}` });
  const grant = await h.call(op.claimTask, { task_id: task.id, agent: 'codex#1' });
  const head = r.commit(wt, { [`src/${name}.ts`]: `${name}\n` }, `add ${name}`);
  await h.call(op.submitResult, { task_id: task.id, claim_id: grant.claim_id, status: 'completed', agent: 'codex#1' });
  await h.call(op.queueIntegration, { task_id: task.id, worktree: wt, branch: `feat/${name}`, head });
  return task.id;
}

/** Fails the first time it runs for a task (per marker directory), passes after. */
const failsOnce = (dir: string) =>
  `m=${dir}/$(ls src | tr -d '\\n'); if [ -e "$m" ]; then exit 0; fi; touch "$m"; exit 1`;

for (const window of [1, 2]) {
  test(`a check that fails once passes on its retry and the merge is recorded flaky and counted (window ${window})`, async () => {
    const h = await harness(makeSqliteStore);
    const r = testRepo();
    const id = await queued(h, r, 'b');
    const marks = tempDir('coord-marks-');
    const i = new Integrator(boardInProcess(h.ctx), {
      board: 'default',
      repo: r.main,
      target: 'main',
      stateDir: join(tempDir('coord-state-'), 's'),
      holder: 'test',
      check: { command: failsOnce(marks), timeoutMs: 60_000 },
      checkRetries: 1,
      window,
    });
    while ((await i.turn()).progressed > 0);
    const shown = (await h.call(op.showTask, { task_id: id })).task.integration;
    assert.equal(shown?.state, 'merged');
    assert.equal(shown?.flaky, true);
    const events = (await h.call(op.listEvents, { limit: 100 })).events.filter((e) => e.type === 'task.integrated');
    assert.deepEqual(
      events.map((e) => (e.data as { flaky?: boolean }).flaky),
      [true],
    );
    assert.equal(i.flakyChecks, 1);
  });
}

test('without retries the same check fails the merge', async () => {
  const h = await harness(makeSqliteStore);
  const r = testRepo();
  const id = await queued(h, r, 'b');
  const i = new Integrator(boardInProcess(h.ctx), {
    board: 'default',
    repo: r.main,
    target: 'main',
    stateDir: tempDir('coord-state-'),
    holder: 'test',
    check: { command: failsOnce(tempDir('coord-marks-')), timeoutMs: 60_000 },
  });
  while ((await i.turn()).progressed > 0);
  assert.equal((await h.call(op.showTask, { task_id: id })).task.integration?.state, 'check_failed');
});
