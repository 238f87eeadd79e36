/**
 * Losing the database (SPEC §8, issue 6): while PostgreSQL is down every
 * daemon answers 503 store_unavailable (CLI exit 3) and writes nothing; once
 * it is back, the same daemon processes serve again — pool and LISTEN
 * connection reconnect by themselves, and no acknowledged write is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { subscribe, waitFor } from '../live/helpers.js';
import { runCli, type SpawnedDaemon } from '../support/daemon.js';
import { type Cluster, startCluster } from './cluster.js';

describe('killing the PostgreSQL server under two daemons', () => {
  let c: Cluster;
  let d1: SpawnedDaemon;
  let d2: SpawnedDaemon;
  before(async () => {
    c = await startCluster(2);
    [d1, d2] = c.daemons as [SpawnedDaemon, SpawnedDaemon];
  });
  after(() => c?.stop());

  test('gives clear 503 store_unavailable answers, and after a restart both daemons serve again without restarting themselves', async () => {
    const before = await c.call(d1, 'POST', '/v1/tasks', { agent: 'alice', board: 'o', title: 'before the crash' });
    const claim = await c.call(d2, 'POST', `/v1/tasks/${before.body.task.id}/claim`, { agent: 'bob', lease_s: 600 });
    assert.equal(claim.status, 200);
    const sub = subscribe(d2, { board: 'o' });
    await sub.opened;
    // Waiting for work across the outage: it must be woken by a post made after the restart.
    const sleeper = c.call(d2, 'POST', '/v1/claim', { agent: 'sleeper', board: 'o', wait_s: 60 });
    await waitFor(async () => {
      const { body } = await c.call(d2, 'GET', '/v1/agents?board=o');
      return (body.agents as { name: string }[]).some((a) => a.name === 'sleeper');
    }, 'the long-poll to be waiting');

    await c.server.kill9();

    for (const d of [d1, d2]) {
      const write = await c.call(d, 'POST', '/v1/tasks', { agent: 'alice', board: 'o', title: 'during the outage' });
      assert.equal(write.status, 503);
      assert.equal(write.body.error.code, 'store_unavailable');
      assert.match(write.body.error.message, /PostgreSQL is unreachable/);
      const read = await c.call(d, 'GET', '/v1/tasks?board=o');
      assert.equal(read.status, 503);
      assert.equal(read.body.error.code, 'store_unavailable');
      assert.equal((await c.call(d, 'GET', '/v1/health')).status, 200, 'the daemon itself is alive');
    }
    const cli = await runCli(['post', 'from the cli', '--state', d1.stateDir, '--agent', 'alice', '--board', 'o']);
    assert.equal(cli.code, 3, cli.stderr);
    assert.match(cli.stderr, /store_unavailable|PostgreSQL is unreachable/);

    await c.server.restart();

    // Until the server accepts connections again, and for a connection the crash broke, the answer is 503.
    const refusals: string[] = [];
    const after = await waitFor(async () => {
      const r = await c.call(d1, 'POST', '/v1/tasks', {
        agent: 'alice',
        board: 'o',
        title: 'after the restart',
        idempotency_key: 'after-restart',
      });
      if (r.status === 201 || r.status === 200) return r;
      refusals.push(`${r.status} ${r.body.error.code}`);
      return null;
    }, 'daemon 1 to serve again');
    for (const r of refusals) assert.equal(r, '503 store_unavailable');
    const woken = await sleeper;
    assert.equal(woken.status, 200, 'the long-poll on daemon 2 was woken by the post on daemon 1');
    assert.equal(woken.body.task.id, after!.body.task.id);
    await waitFor(() => sub.events.some((e) => e.task_id === after!.body.task.id), 'the event on daemon 2’s stream');
    sub.close();

    const { body } = await c.call(d2, 'GET', '/v1/tasks?board=o');
    assert.deepEqual(body.tasks.map((t: { title: string }) => t.title).sort(), [
      'after the restart',
      'before the crash',
    ]);
    const held = await c.call(d2, 'POST', `/v1/tasks/${before.body.task.id}/heartbeat`, {
      claim_id: claim.body.claim_id,
    });
    assert.equal(held.status, 200, 'the claim taken before the crash is still current');
    const events = (await c.call(d1, 'GET', '/v1/events?format=json&board=o&limit=100')).body.events;
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['task.created', 'task.claimed', 'task.created', 'task.claimed'],
      'nothing half-written during the outage',
    );
  });

  test('writers that keep retrying through a crash end with every task written exactly once, each with its one event', async () => {
    const PER_WRITER = 40;
    const answers: string[] = [];
    let progress = 0;
    // A careful client: retry the same idempotency key until it is acknowledged.
    const writer = async (d: SpawnedDaemon, name: string) => {
      for (let i = 0; i < PER_WRITER; i++) {
        for (;;) {
          const r = await c.call(d, 'POST', '/v1/tasks', {
            agent: name,
            board: 'crash',
            title: `${name} ${i}`,
            idempotency_key: `${name}-${i}`,
          });
          answers.push(r.status < 300 ? 'ok' : `${r.status} ${r.body.error.code}`);
          if (r.status < 300) break;
        }
        progress++;
      }
    };
    const writers = Promise.all([writer(d1, 'w1'), writer(d2, 'w2')]);
    await waitFor(() => progress >= 10, 'the writers to be under way');
    await c.server.kill9();
    await waitFor(() => answers.some((a) => a !== 'ok'), 'a write refused during the outage');
    await c.server.restart();
    await writers;

    assert.deepEqual(new Set(answers.filter((a) => a !== 'ok')), new Set(['503 store_unavailable']));
    const { body } = await c.call(d1, 'GET', '/v1/tasks?board=crash&limit=500');
    const titles = body.tasks.map((t: { title: string }) => t.title).sort();
    const expected = ['w1', 'w2'].flatMap((w) => Array.from({ length: PER_WRITER }, (_, i) => `${w} ${i}`)).sort();
    assert.deepEqual(titles, expected, 'one task per key: none lost, none doubled');
    const events = (await c.call(d2, 'GET', '/v1/events?format=json&board=crash&limit=1000')).body.events;
    assert.deepEqual(
      events.map((e: { task_id: string }) => e.task_id).sort(),
      body.tasks.map((t: { id: string }) => t.id).sort(),
      'each task has exactly its one task.created event',
    );
  });
});
