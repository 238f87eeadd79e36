/**
 * Group commit (SPEC §8): writes that arrive together share one transaction and its one fsync, and each
 * keeps its own outcome. Counted with SqliteStore.commitStats; the HTTP case drives a real daemon.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { operations as op } from '../../src/core/operations.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { resolveDaemonConfig } from '../../src/server/config.js';
import { startDaemon } from '../../src/server/start.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { harness, tempDir } from '../support/ctx.js';

const failure = (s: PromiseSettledResult<unknown>): string | null =>
  s.status === 'rejected' ? ((s.reason as { code?: string }).code ?? String(s.reason)) : null;

describe('sqlite group commit', () => {
  test('concurrent writes of which some conflict, some are invalid and some fail midway are each answered with their own outcome, in one commit', async () => {
    const path = join(tempDir(), 'coord.db');
    const h = await harness(async (clock) => new SqliteStore({ path, clock }));
    const store = h.store as SqliteStore;
    const task = (await h.call(op.createTask, { title: 'contested', agent: 'alice' })).task;
    await h.call(op.createTask, { title: 'keyed', idempotency_key: 'k-1', agent: 'alice' });
    const before = store.commitStats.commits;

    const settled = await Promise.allSettled([
      ...['a1', 'a2', 'a3'].map((agent) => h.call(op.claimTask, { task_id: task.id, agent, lease_s: 60 })),
      h.call(op.createTask, { title: '', agent: 'alice' }),
      h.call(op.createTask, { title: 'keyed, other payload', idempotency_key: 'k-1', agent: 'alice' }),
      h.call(op.submitResult, { task_id: task.id, claim_id: 'no-such-claim', status: 'completed', agent: 'a1' }),
      // A write that changes a row and then throws: its savepoint is rolled back, its neighbours commit.
      store.write((tx) => {
        tx.db.prepare("UPDATE tasks SET title = 'scribbled' WHERE id = ?").run(task.id);
        throw new Error('boom after a write');
      }),
      ...[1, 2, 3, 4, 5].map((i) => h.call(op.createTask, { title: `fresh ${i}`, agent: 'bob' })),
    ]);

    assert.equal(store.commitStats.commits - before, 1, 'one commit for the whole batch');
    const claims = settled.slice(0, 3);
    const winners = claims.filter((s) => s.status === 'fulfilled');
    assert.equal(winners.length, 1);
    const holder = (winners[0] as PromiseFulfilledResult<{ task: { claimed_by: string } }>).value.task.claimed_by;
    for (const s of claims.filter((c) => c.status === 'rejected')) {
      assert.equal(failure(s), 'claimed');
      assert.equal((s as PromiseRejectedResult).reason.details.holder, holder);
    }
    assert.deepEqual(settled.slice(3, 7).map(failure), [
      'invalid_request',
      'idempotency_conflict',
      'stale_claim',
      'Error: boom after a write',
    ]);
    assert.deepEqual(settled.slice(7).map(failure), [null, null, null, null, null]);

    // What the file holds, from another connection: the winner's claim, the five posts, no scribble.
    await store.close();
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('SELECT title, state, claimed_by FROM tasks ORDER BY created_at, id').all();
    db.close();
    assert.deepEqual(
      rows.filter((r) => (r as { title: string }).title === 'contested'),
      [{ title: 'contested', state: 'claimed', claimed_by: holder }],
    );
    assert.equal(rows.length, 7);
  });

  test('claim-nexts that arrive with posts join their batch: each post is claimed once, the rest answer none, one commit', async () => {
    const store = new SqliteStore({ path: join(tempDir(), 'coord.db'), clock: new ManualClock() });
    const h = await harness(async () => store);
    const before = store.commitStats.commits;
    const settled = await Promise.all([
      ...[1, 2, 3].map((i) => h.call(op.createTask, { title: `job ${i}`, agent: 'alice' })),
      ...['w1', 'w2', 'w3', 'w4', 'w5'].map((agent) => h.call(op.claimNext, { agent, lease_s: 60 })),
    ]);
    const grants = settled.slice(3) as ({ task: { id: string } } | null)[];
    const won = grants.flatMap((g) => (g ? [g.task.id] : []));
    assert.equal(won.length, 3);
    assert.equal(new Set(won).size, 3, 'no task claimed twice');
    assert.equal(grants.filter((g) => g === null).length, 2);
    assert.equal(store.commitStats.commits - before, 1);
    await store.close();
  });

  test('a write whose failure rolls the whole transaction back does not take its neighbours with it', async () => {
    const store = new SqliteStore({ path: join(tempDir(), 'coord.db'), clock: new ManualClock() });
    const h = await harness(async () => store);
    const before = store.commitStats.commits;
    const settled = await Promise.allSettled([
      h.call(op.createTask, { title: 'first', agent: 'alice' }),
      // What SQLite does on a full disk or an I/O error: the transaction is gone, not just the savepoint.
      store.write((tx) => {
        tx.db.prepare("UPDATE tasks SET title = 'scribbled'").run();
        tx.db.exec('ROLLBACK');
        throw new Error('transaction lost');
      }),
      h.call(op.createTask, { title: 'third', agent: 'alice' }),
    ]);
    assert.deepEqual(settled.map(failure), [null, 'Error: transaction lost', null]);
    const titles = (await store.listTasks({ board: 'default', limit: 10 })).tasks.map((t) => t.title).sort();
    assert.deepEqual(titles, ['first', 'third']);
    assert.equal(store.commitStats.commits - before, 1, 'the survivors ran again in one fresh transaction');
    await store.close();
  });

  test('a lone write is answered in the turn of the event loop it was made in: no timer waits for company', async () => {
    const store = new SqliteStore({ path: join(tempDir(), 'coord.db'), clock: new ManualClock() });
    const order: string[] = [];
    const write = store.write(() => 'written').then((v) => order.push(v));
    // Scheduled after the write: the write's flush is already queued for this turn's check phase, ahead of it.
    setImmediate(() => order.push('next immediate'));
    await write;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, ['written', 'next immediate']);
    assert.deepEqual(store.commitStats, { commits: 1, writes: 1, largest: 1 });
    await store.close();
  });

  test('the daemon is durable by default (synchronous=FULL) and says so in /v1/health; --durability normal opts out', async () => {
    for (const [flag, expected, pragma] of [
      [undefined, 'full', 2],
      ['normal', 'normal', 1],
    ] as const) {
      const config = {
        ...resolveDaemonConfig({ state: tempDir(), port: 0, ...(flag ? { durability: flag } : {}) }, {}),
        logLevel: 'silent',
      };
      const d = await startDaemon(config);
      try {
        const health = (await (await fetch(`${d.url}/v1/health`)).json()) as { durability: string };
        assert.equal(health.durability, expected);
        assert.equal((d.store as SqliteStore).db.pragma('synchronous', { simple: true }), pragma);
      } finally {
        await d.close();
      }
    }
    assert.throws(() => resolveDaemonConfig({ durability: 'fast' }, {}), /--durability must be full or normal/);
  });

  test('fifty HTTP requests that reach the daemon together (conflicting claims, invalid bodies, posts) share one commit', async () => {
    const config = { ...resolveDaemonConfig({ state: tempDir(), port: 0 }, {}), logLevel: 'silent' };
    const d = await startDaemon(config);
    const store = d.store as SqliteStore;
    try {
      const url = new URL(d.url);
      const headers = { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' };
      const { Agent } = await import('node:http');
      const agent = new Agent({ keepAlive: true, maxSockets: 50 });
      const post = (path: string, body: unknown) =>
        new Promise<{ status: number; body: { error?: { code: string }; task?: { id: string } } }>(
          (resolve, reject) => {
            const req = request({ host: url.hostname, port: url.port, path, method: 'POST', headers, agent }, (res) => {
              let text = '';
              res.on('data', (c) => {
                text += c;
              });
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
            });
            req.on('error', reject);
            req.end(JSON.stringify(body));
          },
        );
      // Open the fifty keep-alive connections first, so that the batch below is fifty requests, not accepts.
      await Promise.all(Array.from({ length: 50 }, (_, i) => post('/v1/tasks', { title: `warm ${i}`, agent: 'w' })));
      const contested = await post('/v1/tasks', { title: 'contested', agent: 'alice' });
      const taskId = contested.body.task?.id ?? '';
      const before = { ...store.commitStats };

      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i < 10
            ? post(`/v1/tasks/${taskId}/claim`, { agent: `a${i}`, lease_s: 60 })
            : i < 20
              ? post('/v1/tasks', { title: '', agent: 'bob' })
              : post('/v1/tasks', { title: `post ${i}`, agent: 'bob' }),
        ),
      );
      agent.destroy();
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.slice(0, 10).filter((s) => s === 200).length, 1, 'one claim wins');
      assert.deepEqual(
        answers.slice(0, 10).flatMap((a) => (a.status === 200 ? [] : [a.body.error?.code])),
        Array(9).fill('claimed'),
      );
      assert.deepEqual(
        answers.slice(10, 20).map((a) => a.body.error?.code),
        Array(10).fill('invalid_request'),
      );
      assert.ok(statuses.slice(20).every((s) => s === 201));
      const writes = store.commitStats.writes - before.writes;
      const commits = store.commitStats.commits - before.commits;
      assert.equal(writes, 40, 'the invalid bodies never reach the store');
      console.log(`# 50 requests, 40 writes, ${commits} commit(s), largest batch ${store.commitStats.largest}`);
      assert.equal(commits, 1);
    } finally {
      await d.close();
    }
  });
});
