/**
 * SPEC §18 "Budgets": a supervised run's usage, reported to a real daemon as `coord run` reports it, is
 * recorded on the task (summed over tries) and `coord show` prints it on a `usage` line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

describe('coord show and a task’s usage', () => {
  let d: SpawnedDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    d = await spawnDaemon();
    env = { COORD_STATE: d.stateDir, COORD_BOARD: 'usage', COORD_AGENT: 'tester' };
  });
  after(async () => {
    await d.stop();
  });

  test('show prints the tokens, cost and wall seconds of the task’s exited runs, summed over its tries', async () => {
    const posted = await runCli(['post', 'count my tokens', '--json'], env);
    assert.equal(posted.code, 0, posted.stderr);
    const id = (JSON.parse(posted.stdout) as { task: { id: string } }).task.id;
    const before = await runCli(['show', id], env);
    assert.doesNotMatch(before.stdout, /^usage /m, 'no usage line before any run exited');
    const at = new Date().toISOString();
    const run = {
      agent: 'claude#s1',
      board: 'usage',
      client: 'claude',
      pid: 99,
      task_id: id,
      worktree: '/repo.worktrees/s',
      branch: `coord/${id}-s`,
      state: 'exited',
      since: at,
      started_at: at,
      usage: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.5, wall_s: 40 },
      paused_until: null,
      attempt: 1,
      supervisor: 'coord run (pid 1 on host)',
      exit_code: 1,
      submitted: false,
    };
    for (const r of [run, run, { ...run, agent: 'claude#s2', attempt: 2, usage: { ...run.usage, wall_s: 2 } }]) {
      const res = await d.fetch('/v1/runs', { method: 'POST', json: r });
      assert.equal(res.status, 200, await res.text());
    }
    const shown = await runCli(['show', id], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^usage 2400 in \+ 600 out tokens · \$1\.00 · 42 s wall$/m);
    const json = JSON.parse((await runCli(['show', id, '--json'], env)).stdout) as { task: { usage: unknown } };
    assert.deepEqual(json.task.usage, { input_tokens: 2400, output_tokens: 600, cost_usd: 1, wall_s: 42 });
  });
});
