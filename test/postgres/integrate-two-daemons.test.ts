/** SPEC §15 on PostgreSQL: two daemons on one database, an integrator beside each, many rounds — each task merged once. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { branches, exactlyOnce, integrate, queueTasks, testRepo } from '../integrate/queue-fixture.js';
import { spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { type Cluster, startCluster } from './cluster.js';

describe('integrators beside two daemons on one PostgreSQL database', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2);
  });
  after(() => c?.stop());

  test('two integrators started together through two daemons, 4 rounds: every task merged exactly once', async () => {
    const [one, two] = c.daemons as [Cluster['daemons'][number], Cluster['daemons'][number]];
    const r = testRepo();
    const all = [];
    for (let round = 0; round < 4; round++) {
      all.push(...(await queueTasks(round % 2 === 0 ? one : two, 'pg-race', branches(r, `p${round}`, 4))));
      const outs = await Promise.all([
        integrate(one, 'pg-race', r.main, ['--once']).done,
        integrate(two, 'pg-race', r.main, ['--once']).done,
      ]);
      for (const o of outs) assert.equal(o.code, 0, o.stderr);
      for (const x of await exactlyOnce(one, r, all)) {
        assert.equal(x.head, 1, `${x.id}: its commit is in the target once`);
        assert.ok(x.merges <= 1, `${x.id}: at most one merge commit`);
        assert.equal(x.integrated, 1, `${x.id}: recorded merged once`);
      }
    }
  });

  test('two daemons running serve --integrate --window 2 on the board: every task merged exactly once', async () => {
    // Two more daemons on the same database, each with its integrator (and its speculative window).
    const args = ['--store', c.url, '--integrate', '--check', 'true', '--window', '2'];
    const env = { COORD_LOG_LEVEL: 'info' };
    const integrators = [await spawnDaemon({ args, env }), await spawnDaemon({ args, env })];
    try {
      const [one, two] = integrators as [Cluster['daemons'][number], Cluster['daemons'][number]];
      const r = testRepo();
      // The board's repository first: both integrators merge there.
      const target = await one.fetch('/v1/target', {
        method: 'POST',
        json: { board: 'pg-window', branch: 'main', worktree: r.main },
      });
      assert.equal(target.status, 200, await target.clone().text());
      const work = branches(r, 'w', 6);
      const all = [
        ...(await queueTasks(one, 'pg-window', work.slice(0, 3))),
        ...(await queueTasks(two, 'pg-window', work.slice(3))),
      ];
      await waitFor(
        async () => (await exactlyOnce(one, r, all)).every((x) => x.integrated === 1),
        'every task merged',
        120_000,
      ).catch(async (err) => {
        // A hang says where it stood: each task's count, the queue, and what each integrator logged.
        const queue = await (await one.fetch('/v1/integration/queue?board=pg-window')).text();
        const logs = integrators.map((d, i) => `daemon ${i}:\n${d.stderr().split('\n').slice(-40).join('\n')}`);
        throw new Error(
          `${err.message}\n${JSON.stringify(await exactlyOnce(one, r, all))}\nqueue: ${queue}\n${logs.join('\n')}`,
        );
      });
      for (const x of await exactlyOnce(one, r, all)) {
        assert.equal(x.head, 1, `${x.id}: its commit is in the target once`);
        assert.ok(x.merges <= 1, `${x.id}: at most one merge commit`);
        assert.equal(x.integrated, 1, `${x.id}: recorded merged once`);
      }
    } finally {
      await Promise.all(integrators.map((d) => d.stop()));
    }
  });
});
