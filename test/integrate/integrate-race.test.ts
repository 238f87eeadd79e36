/**
 * SPEC §15 across real processes: two `coord integrate` runs started together, many rounds, on one
 * SQLite daemon — every task merged exactly once; and kill -9 of the integrator at random instants —
 * after restarts nothing is merged twice, nothing is lost, and no temporary work tree is left.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git } from '../git/repo.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { branches, exactlyOnce, integrate, queueTasks, testRepo } from './queue-fixture.js';

const ONCE = { head: 1, merges: undefined, integrated: 1 };

describe('integrators in real processes (SQLite)', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(() => d?.stop());

  for (const window of [1, 3]) {
    const windowArgs = window === 1 ? [] : ['--check', 'true', '--window', String(window)];
    const board = `race-w${window}`;
    test(`two integrators started together, 5 rounds, window ${window}: every task merged exactly once, in one history`, async () => {
      const r = testRepo();
      const all = [];
      for (let round = 0; round < 5; round++) {
        const tasks = await queueTasks(d, board, branches(r, `r${round}`, 4));
        all.push(...tasks);
        const runs = [
          integrate(d, board, r.main, ['--once', ...windowArgs]),
          integrate(d, board, r.main, ['--once', ...windowArgs]),
        ];
        const outs = await Promise.all(runs.map((x) => x.done));
        for (const o of outs) assert.equal(o.code, 0, o.stderr);
        // The one that found the slot taken said so and merged nothing; whoever had it merged them all.
        const counts = await exactlyOnce(d, r, all);
        for (const c of counts)
          assert.deepEqual({ ...c, id: undefined, merges: undefined }, { ...ONCE, id: undefined }, c.id);
        for (const c of counts) assert.ok(c.merges <= 1, `${c.id} merged by at most one merge commit`);
      }
      assert.equal(new Set(r.history('main')).size, r.history('main').length);
    });

    test(`kill -9 of the integrator at random instants, window ${window}: no task merged twice, none lost, the checked-out target never behind, no temporary work tree left`, async () => {
      const r = testRepo();
      const crash = `crash-w${window}`;
      const tasks = await queueTasks(d, crash, branches(r, 'k', 10));
      const args = ['--check', 'sleep 0.4', '--slot-lease', '1', '--window', String(window)];
      for (let kill = 0; kill < 4; kill++) {
        const run = integrate(d, crash, r.main, args);
        // A random instant of the integrator's work (not of node's start-up): once it has begun a check or
        // reported a merge — during a check, a swap, a record, or between them.
        const checks = join(d.stateDir, 'integrate');
        await waitFor(
          () =>
            run.stdout() !== '' ||
            (existsSync(checks) && readdirSync(checks).length > 0) ||
            run.child.exitCode !== null,
          'the integrator at work',
        );
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 700)));
        run.child.kill('SIGKILL');
        await run.done;
      }
      // Restart until everything is merged: the dead integrators' slot lapses (1 s) and a run takes over.
      await waitFor(
        async () => {
          const out = await integrate(d, crash, r.main, [...args, '--once']).done;
          assert.equal(out.code, 0, out.stderr);
          return (await exactlyOnce(d, r, tasks)).every((c) => c.integrated === 1);
        },
        'every task merged after the restarts',
        120_000,
      );
      for (const c of await exactlyOnce(d, r, tasks)) {
        assert.equal(c.head, 1, `${c.id}: its commit is in the target once`);
        assert.ok(c.merges <= 1, `${c.id}: at most one merge commit`);
        assert.equal(c.integrated, 1, `${c.id}: recorded merged once`);
      }
      // Recorded as the commit that merged it — its merge commit, or its head when fast-forwarded — even when
      // the integrator died between moving the target and recording.
      const mergeOf = new Map(
        git(r.main, 'log', '--merges', '--format=%s%x00%H', 'main')
          .split('\n')
          .map((l) => [/^coord: integrate #(\S+) /.exec(l)?.[1] ?? '', l.split('\0')[1]]),
      );
      for (const t of tasks) {
        const { task } = (await (await d.fetch(`/v1/tasks/${t.id}`)).json()) as {
          task: { integration?: { commit?: string } };
        };
        assert.equal(
          task.integration?.commit,
          mergeOf.get(t.id) ?? t.head,
          `${t.id}: recorded as the commit that merged it`,
        );
      }
      const checks = join(d.stateDir, 'integrate');
      assert.deepEqual(existsSync(checks) ? readdirSync(checks) : [], []);
      assert.deepEqual(
        git(r.main, 'worktree', 'list', '--porcelain')
          .split('\n')
          .filter((l) => l.startsWith('worktree ')),
        [`worktree ${r.main}`],
      );
      assert.equal(git(r.main, 'status', '--porcelain'), '', 'the checked-out main is at its tip');
    });
  }
});
