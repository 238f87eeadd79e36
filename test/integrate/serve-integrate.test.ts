/**
 * SPEC §15 inside the daemon: `coord serve --integrate --check CMD` as a real process merges the work
 * completed on a board by itself — no `coord integrate` run — and a failed check becomes a follow-up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { git } from '../git/repo.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { branches, exactlyOnce, queueTasks, testRepo } from './queue-fixture.js';

interface Shown {
  task: { id: string; integration?: { state: string; commit?: string; reason?: string; followup?: string } };
}

describe('coord serve --integrate', () => {
  let d: SpawnedDaemon;
  before(async () => {
    // s-2 adds files/s-2.txt, which the check refuses.
    d = await spawnDaemon({ args: ['--integrate', '--check', 'test ! -e files/s-2.txt', '--check-timeout', '60'] });
  });
  after(() => d?.stop());

  test('the daemon merges completed tasks into the target by itself, and a failed check gets a follow-up', async () => {
    const r = testRepo();
    git(r.main, 'checkout', '-q', '-b', 'elsewhere');
    const target = await d.fetch('/v1/target', {
      method: 'POST',
      json: { board: 'serve', branch: 'main', worktree: r.main },
    });
    assert.equal(target.status, 200, await target.clone().text());
    const tip = r.rev('main');
    const tasks = await queueTasks(d, 'serve', branches(r, 's', 4));

    const shown = async (id: string) => ((await (await d.fetch(`/v1/tasks/${id}`)).json()) as Shown).task.integration;
    const settled = await waitFor(
      async () => {
        const states = await Promise.all(tasks.map((t) => shown(t.id)));
        return states.every((s) => s?.state === 'merged' || s?.state === 'check_failed') ? states : null;
      },
      'the daemon to integrate every task',
      60_000,
    );
    assert.ok(settled);
    assert.deepEqual(
      settled.map((s) => s?.state),
      ['merged', 'merged', 'check_failed', 'merged'],
    );
    const history = r.history('main');
    assert.ok(history.includes(tip), "the target's earlier tip is kept");
    for (const t of tasks) assert.equal(history.includes(t.head), t.branch !== 's-2', t.branch);
    for (const c of (await exactlyOnce(d, r, tasks)).filter((c) => c.id !== tasks[2]?.id)) {
      assert.equal(c.head, 1);
      assert.equal(c.integrated, 1);
    }
    const failed = settled[2];
    assert.match(failed?.reason ?? '', /test ! -e files\/s-2\.txt/);
    assert.ok(failed?.followup, 'a follow-up task for the agent');
    const followup = ((await (await d.fetch(`/v1/tasks/${failed.followup}`)).json()) as { task: { title: string } })
      .task;
    assert.match(followup.title, /^fix the check of #/);
  });

  test('`coord target dev` takes effect for the next merge of the daemon’s integrator', async () => {
    const r = testRepo();
    git(r.main, 'branch', 'dev');
    const setTarget = async (branch: string) => {
      const res = await d.fetch('/v1/target', {
        method: 'POST',
        json: { board: 'retarget', branch, worktree: r.main },
      });
      assert.equal(res.status, 200, await res.clone().text());
    };
    await setTarget('main');
    const [first, second] = branches(r, 't', 2) as [{ branch: string; head: string }, { branch: string; head: string }];
    const state = async (id: string) => ((await (await d.fetch(`/v1/tasks/${id}`)).json()) as Shown).task.integration;
    const [one] = await queueTasks(d, 'retarget', [first]);
    await waitFor(async () => (await state(one?.id ?? ''))?.state === 'merged', 'the first task merged', 60_000);
    assert.ok(r.history('main').includes(first.head));

    await setTarget('dev');
    const [two] = await queueTasks(d, 'retarget', [second]);
    await waitFor(async () => (await state(two?.id ?? ''))?.state === 'merged', 'the second task merged', 60_000);
    assert.ok(r.history('dev').includes(second.head), 'merged into dev');
    assert.ok(!r.history('main').includes(second.head), 'not into main');
  });
});
