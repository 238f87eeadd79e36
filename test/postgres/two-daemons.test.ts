/**
 * SPEC §8: several daemons on one PostgreSQL database keep every promise of
 * SPEC §3. Real `coord serve` processes, real worker processes, one database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { overlaps } from '../../src/core/edits/paths.js';
import { waitFor } from '../live/helpers.js';
import type { SpawnedDaemon } from '../support/daemon.js';
import { type Cluster, startCluster } from './cluster.js';
import { raceWorkers } from './workers.js';

describe('two daemons on one PostgreSQL database', () => {
  let c: Cluster;
  let d1: SpawnedDaemon;
  let d2: SpawnedDaemon;
  before(async () => {
    c = await startCluster(2);
    [d1, d2] = c.daemons as [SpawnedDaemon, SpawnedDaemon];
  });
  after(() => c?.stop());

  const post = async (d: SpawnedDaemon, board: string, title: string) => {
    const res = await c.call(d, 'POST', '/v1/tasks', { agent: 'poster', board, title });
    assert.equal(res.status, 201);
    return res.body.task.id as string;
  };

  test('both report the postgres store in their health', async () => {
    for (const d of [d1, d2]) assert.equal((await c.call(d, 'GET', '/v1/health')).body.store, 'postgres');
  });

  test('of 16 OS processes split across the two daemons racing for one task, exactly one wins and every loser is told the winner', async () => {
    const id = await post(d1, 'race', 'one task, sixteen claimers');
    const plan = Array.from({ length: 16 }, (_, i) => ({ daemon: i % 2 ? d2 : d1, agent: `w${i}` }));
    const answers = (await raceWorkers(plan, 'claim', id)).map((w) => w.lines[0] as { status: number; body: any });
    const winners = answers.filter((a) => a.status === 200);
    assert.equal(winners.length, 1);
    const winner = winners[0]!.body;
    for (const a of answers.filter((x) => x.status !== 200)) {
      assert.equal(a.status, 409);
      assert.equal(a.body.error.code, 'claimed');
      assert.equal(a.body.error.holder, winner.task.claimed_by);
      assert.equal(a.body.error.lease_until, winner.lease_until);
    }
    for (const d of [d1, d2]) {
      const { body } = await c.call(d, 'GET', `/v1/tasks/${id}`);
      assert.equal(body.task.claimed_by, winner.task.claimed_by);
      assert.equal(body.task.attempts, 1);
    }
    const log = await c.call(d2, 'GET', `/v1/events?format=json&board=race&limit=100`);
    assert.equal(log.body.events.filter((e: { type: string }) => e.type === 'task.claimed').length, 1);
  });

  test('eight claim-next workers across the two daemons drain 100 tasks, each claimed exactly once', async () => {
    for (let i = 0; i < 100; i++) await post(i % 2 ? d2 : d1, 'drain', `task ${i}`);
    const plan = Array.from({ length: 8 }, (_, i) => ({ daemon: i % 2 ? d2 : d1, agent: `drainer${i}` }));
    const workers = await raceWorkers(plan, 'drain', 'drain');
    const claimed = workers.flatMap((w) => w.lines.filter((l) => 'claimed' in l).map((l) => l.claimed as string));
    assert.equal(claimed.length, 100);
    assert.equal(new Set(claimed).size, 100);
    const onEach = workers.map((w, i) => ({ daemon: i % 2 ? 2 : 1, n: w.lines.filter((l) => 'claimed' in l).length }));
    assert.ok(
      onEach.filter((w) => w.daemon === 1).some((w) => w.n > 0),
      'daemon 1 served claims',
    );
    assert.ok(
      onEach.filter((w) => w.daemon === 2).some((w) => w.n > 0),
      'daemon 2 served claims',
    );
    const { body } = await c.call(d1, 'GET', '/v1/tasks?board=drain&limit=500');
    assert.equal(body.tasks.length, 100);
    for (const t of body.tasks) {
      assert.equal(t.state, 'completed');
      assert.equal(t.attempts, 1, `${t.id} was claimed once`);
    }
  });

  test('a lease taken through daemon 1 that lapses is taken over through daemon 2, and daemon 1’s late submit is fenced', async () => {
    const id = await post(d1, 'lapse', 'short lease');
    const first = await c.call(d1, 'POST', `/v1/tasks/${id}/claim`, { agent: 'slow', lease_s: 1 });
    assert.equal(first.status, 200);
    // Poll the takeover itself: it fails with `claimed` until the database clock passes the lease.
    const second = (await waitFor(async () => {
      const r = await c.call(d2, 'POST', `/v1/tasks/${id}/claim`, { agent: 'fast' });
      return r.status === 200 ? r : null;
    }, 'the lapsed lease to be taken over'))!;
    assert.equal(second.body.fence, 2);
    assert.ok(Date.parse(second.body.lease_until) > Date.parse(first.body.lease_until));
    const late = await c.call(d1, 'POST', `/v1/tasks/${id}/submit`, {
      claim_id: first.body.claim_id,
      status: 'completed',
      result: 'too late',
    });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'stale_claim');
    const heartbeat = await c.call(d1, 'POST', `/v1/tasks/${id}/heartbeat`, { claim_id: first.body.claim_id });
    assert.equal(heartbeat.body.error.code, 'stale_claim');
    const done = await c.call(d2, 'POST', `/v1/tasks/${id}/submit`, {
      claim_id: second.body.claim_id,
      status: 'completed',
      result: 'on time',
    });
    assert.equal(done.status, 200);
    assert.equal((await c.call(d1, 'GET', `/v1/tasks/${id}`)).body.task.result, 'on time');
  });

  test('a file lock taken through daemon 1 conflicts on daemon 2, and is free there once released on daemon 1', async () => {
    const held = await c.call(d1, 'POST', '/v1/locks', { agent: 'alice', board: 'files', resources: ['src/'] });
    assert.equal(held.status, 201);
    const refused = await c.call(d2, 'POST', '/v1/locks', { agent: 'bob', board: 'files', resources: ['src/a.ts'] });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'lock_conflict');
    assert.deepEqual(
      refused.body.error.conflicts.map((x: { resource: string; held: string; holder: string; lock_id: string }) => [
        x.resource,
        x.held,
        x.holder,
        x.lock_id,
      ]),
      [['src/a.ts', 'src/', 'alice', held.body.lock_id]],
    );
    assert.equal((await c.call(d1, 'DELETE', `/v1/locks/${held.body.lock_id}`)).status, 200);
    const granted = await c.call(d2, 'POST', '/v1/locks', { agent: 'bob', board: 'files', resources: ['src/a.ts'] });
    assert.equal(granted.status, 201);
  });

  test('overlapping lock requests fired at both daemons at once never leave a file held twice, and every loser holds nothing', async () => {
    const pool = ['a.ts', 'b.ts', 'src/', 'src/x.ts', 'src/y.ts', 'src/deep/', 'src/deep/z.ts', 'docs/'];
    const pick = (i: number, r: number) => [pool[(i * 7 + r) % pool.length]!, pool[(i * 3 + r * 5 + 1) % pool.length]!];
    for (let round = 0; round < 6; round++) {
      const asks = Array.from({ length: 16 }, (_, i) => ({
        d: i % 2 ? d2 : d1,
        agent: `l${i}`,
        resources: pick(i, round),
      }));
      const answers = await Promise.all(
        asks.map((a) => c.call(a.d, 'POST', '/v1/locks', { agent: a.agent, board: 'storm', resources: a.resources })),
      );
      const { body } = await c.call(d2, 'GET', '/v1/locks?board=storm');
      const live = body.locks as { lock_id: string; agent: string; resources: string[] }[];
      const granted = answers.filter((a) => a.status === 201).map((a) => a.body.lock_id as string);
      assert.ok(granted.length >= 1, 'someone always wins');
      assert.deepEqual(live.map((l) => l.lock_id).sort(), [...granted].sort(), 'exactly the granted locks are live');
      for (const a of answers) if (a.status !== 201) assert.equal(a.body.error.code, 'lock_conflict');
      const held = live.flatMap((l) => l.resources.map((r) => ({ r, lock: l.lock_id })));
      for (const x of held) {
        for (const y of held) {
          if (x.lock !== y.lock) assert.ok(!overlaps(x.r, y.r), `${x.r} and ${y.r} are both held (round ${round})`);
        }
      }
      await Promise.all(granted.map((id, i) => c.call(i % 2 ? d1 : d2, 'DELETE', `/v1/locks/${id}`)));
    }
  });
});
