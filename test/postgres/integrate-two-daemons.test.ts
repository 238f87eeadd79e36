/** SPEC §15 on PostgreSQL: two daemons on one database, an integrator beside each, many rounds — each task merged once. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { branches, exactlyOnce, integrate, queueTasks, testRepo } from '../integrate/queue-fixture.js';
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
});
