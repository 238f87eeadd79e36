import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { drainDag } from './dag.js';

describe('a DAG drained by real OS processes over real HTTP (SPEC §11)', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });

  test('8 claim-next processes drain a plan of 200 dependent tasks: each claimed and completed once, never before its blockers', async () => {
    const report = await drainDag([d], 'dag', 200, 8);
    console.log(`# sqlite: ${JSON.stringify(report)}`);
    assert.equal(report.claims, 200);
    assert.equal(report.completions, 200);
    assert.ok(report.perWorker.filter((n) => n > 0).length > 1, 'more than one process did work');
  });
});
