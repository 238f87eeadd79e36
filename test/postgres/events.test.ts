/**
 * Events across daemons (SPEC §8, LISTEN/NOTIFY): whatever is written through
 * one daemon reaches the SSE streams and the waiting long-polls of the others.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoordEvent } from '../../src/core/model.js';
import { subscribe, waitFor } from '../live/helpers.js';
import type { SpawnedDaemon } from '../support/daemon.js';
import { type Cluster, startCluster } from './cluster.js';

describe('events across two daemons on one PostgreSQL database', () => {
  let c: Cluster;
  let d1: SpawnedDaemon;
  let d2: SpawnedDaemon;
  before(async () => {
    // No background sweep: the bulk test below makes one read move every due ttl in a single commit.
    c = await startCluster(2, { COORD_SWEEP_MS: '3600000' });
    [d1, d2] = c.daemons as [SpawnedDaemon, SpawnedDaemon];
  });
  after(() => c?.stop());

  const post = async (d: SpawnedDaemon, board: string, title: string) => {
    const res = await c.call(d, 'POST', '/v1/tasks', { agent: 'poster', board, title });
    assert.equal(res.status, 201);
    return res.body.task.id as string;
  };

  test('an event written through daemon 1 reaches an SSE subscriber on daemon 2', async () => {
    const sub = subscribe(d2, { board: 'sse' });
    await sub.opened;
    const id = await post(d1, 'sse', 'posted on daemon 1');
    const seen = (await waitFor(() => sub.events.find((e) => e.task_id === id), 'the event on daemon 2'))!;
    sub.close();
    assert.equal(seen.type, 'task.created');
    assert.equal(seen.agent, 'poster');
  });

  test('a long-poll claim waiting on daemon 2 is woken by a task posted on daemon 1', async () => {
    const claim = c.call(d2, 'POST', '/v1/claim', { agent: 'sleeper', board: 'wake', wait_s: 60 });
    // The waiting claim is seen on daemon 2 (presence) once it has subscribed and looked.
    await waitFor(async () => {
      const { body } = await c.call(d2, 'GET', '/v1/agents?board=wake');
      return (body.agents as { name: string }[]).some((a) => a.name === 'sleeper');
    }, 'the claim to be waiting');
    const id = await post(d1, 'wake', 'work for the sleeper');
    // Without the cross-daemon event it would sleep its full 60 s and answer 204.
    const res = await claim;
    assert.equal(res.status, 200);
    assert.equal(res.body.task.id, id);
  });

  test('writes through both daemons at once reach subscribers on both exactly once each, in seq order', async () => {
    const subs = [subscribe(d1, { board: 'both' }), subscribe(d2, { board: 'both' })];
    await Promise.all(subs.map((s) => s.opened));
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 ? d2 : d1, 'both', `t${i}`)));
    const log = (await c.call(d1, 'GET', '/v1/events?format=json&board=both&limit=1000')).body.events as CoordEvent[];
    assert.equal(log.length, 20);
    for (const s of subs) {
      await waitFor(() => s.events.length >= 20, 'twenty events');
      s.close();
      assert.deepEqual(
        s.events.map((e) => e.seq),
        log.map((e) => e.seq),
        'the same events as the log, once each, in seq order',
      );
    }
    assert.deepEqual(new Set(log.map((e) => e.task_id)), new Set(ids));
  });

  test('a commit with more events than one notification can carry (a sweep expiring a hundred ttls) reaches subscribers on both daemons', async () => {
    const N = 200;
    const subs = [subscribe(d1, { board: 'bulk' }), subscribe(d2, { board: 'bulk' })];
    await Promise.all(subs.map((s) => s.opened));
    // Posted with a 10 s ttl (longer than posting takes even on a loaded machine, so no post's own lazy expiry
    // moves any); with no background sweep, nothing moves them until one read after they are all due, whose
    // lazy expiry moves all of them in a single commit.
    const posted = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        c.call(i % 2 ? d2 : d1, 'POST', '/v1/tasks', { agent: 'poster', board: 'bulk', title: `t${i}`, ttl_s: 10 }),
      ),
    );
    const lastDue = Math.max(...posted.map((p) => Date.parse(p.body.task.expires_at)));
    await waitFor(() => Date.now() > lastDue + 50, 'every ttl to be due');
    await c.call(d1, 'GET', '/v1/tasks?board=bulk&limit=1');
    const expired = (s: { events: CoordEvent[] }) => s.events.filter((e) => e.type === 'task.expired').length;
    for (const s of subs) await waitFor(() => expired(s) === N, `${N} task.expired events`);
    const log = (await c.call(d2, 'GET', '/v1/events?format=json&board=bulk&limit=1000')).body.events as CoordEvent[];
    const perCommit = new Map<string, number>();
    for (const e of log.filter((x) => x.type === 'task.expired')) perCommit.set(e.at, (perCommit.get(e.at) ?? 0) + 1);
    // ~130 bytes per event: 70 of them are past NOTIFY's 8000-byte payload.
    assert.ok(Math.max(...perCommit.values()) >= 70, `one sweep moved many: ${[...perCommit.values()]}`);
    for (const s of subs) {
      s.close();
      assert.deepEqual(
        s.events.map((e) => e.seq),
        log.map((e) => e.seq),
      );
    }
  });
});
