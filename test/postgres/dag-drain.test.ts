import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { drainDag } from '../race/dag.js';
import { type Cluster, startCluster } from './cluster.js';

describe('a DAG drained through two daemons on one PostgreSQL database (SPEC §11)', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster(2);
  });
  after(() => c?.stop());

  test('8 claim-next processes split over two daemons drain a plan of 200 dependent tasks: each claimed and completed once, never before its blockers', async () => {
    const report = await drainDag(c.daemons, 'dag', 200, 8);
    console.log(`# postgres, two daemons: ${JSON.stringify(report)}`);
    assert.equal(report.claims, 200);
    assert.equal(report.completions, 200);
    const [even, odd] = [0, 1].map((k) => report.perWorker.filter((_, i) => i % 2 === k).reduce((a, b) => a + b, 0));
    assert.ok(even! > 0 && odd! > 0, 'both daemons served claims');
  });
});
