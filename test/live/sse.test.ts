import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoordEvent } from '../../src/core/model.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { subscribe, waitFor } from './helpers.js';

/** GET /v1/events over a real daemon: order, exact resume, and the JSON form. */
describe('the event stream (SSE)', () => {
  let d: SpawnedDaemon;
  before(async () => {
    d = await spawnDaemon();
  });
  after(async () => {
    await d.stop();
  });

  const call = async (method: string, path: string, json?: unknown) => {
    const res = await d.fetch(path, { method, json });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const post = async (board: string, title: string) =>
    (await call('POST', '/v1/tasks', { agent: 'poster', board, title })).body.task.id as string;
  /** One task's whole life: created, claimed, completed. */
  const live = async (board: string, title: string) => {
    const id = await post(board, title);
    const claim = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'worker' });
    const done = await call('POST', `/v1/tasks/${id}/submit`, {
      claim_id: claim.body.claim_id,
      status: 'completed',
      result: { ok: true },
    });
    assert.equal(done.status, 200);
    return id;
  };
  const logOf = async (board: string, since: number): Promise<CoordEvent[]> =>
    (await call('GET', `/v1/events?format=json&board=${board}&since=${since}&limit=1000`)).body.events;
  const seqs = (events: CoordEvent[]) => events.map((e) => e.seq);

  test('a task’s life arrives as task.created, task.claimed, task.completed, in order, with id = seq and event = type', async () => {
    const sub = subscribe(d, { board: 'life' });
    const res = await sub.opened;
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const id = await live('life', 'one whole life');
    await waitFor(() => sub.events.some((e) => e.type === 'task.completed'), 'task.completed');
    sub.close();
    const mine = sub.events.filter((e) => e.task_id === id);
    assert.deepEqual(
      mine.map((e) => e.type),
      ['task.created', 'task.claimed', 'task.completed'],
    );
    assert.ok(mine[0]!.seq < mine[1]!.seq && mine[1]!.seq < mine[2]!.seq);
    assert.equal(mine[1]!.agent, 'worker');
  });

  test('reconnecting with Last-Event-ID resumes right after that event: nothing lost, nothing repeated', async () => {
    const first = subscribe(d, { board: 'resume' });
    await first.opened;
    const a = await live('resume', 'before the drop');
    await waitFor(() => first.events.length >= 3, 'three events');
    first.close();
    const lastSeen = first.events[0]!; // resume after task.created, as if the drop came right after it
    // Writes keep landing while nobody listens.
    const b = await live('resume', 'during the drop');
    const again = subscribe(d, { board: 'resume', lastEventId: lastSeen.seq });
    await again.opened;
    const c = await post('resume', 'after the reconnect');
    await waitFor(() => again.events.some((e) => e.task_id === c), 'the post after reconnecting');
    again.close();
    assert.deepEqual(seqs(again.events), seqs(await logOf('resume', lastSeen.seq)));
    assert.ok(again.events.every((e) => e.seq > lastSeen.seq));
    assert.deepEqual(
      again.events.map((e) => `${e.task_id === a ? 'a' : e.task_id === b ? 'b' : 'c'}:${e.type}`),
      ['a:task.claimed', 'a:task.completed', 'b:task.created', 'b:task.claimed', 'b:task.completed', 'c:task.created'],
    );
  });

  test('a stream resumed while writers keep committing sees every event exactly once, in order', async () => {
    const board = 'busy';
    const writers = [1, 2, 3, 4].map(async (w) => {
      for (let i = 0; i < 60; i++) await post(board, `w${w} #${i}`);
    });
    await waitFor(async () => (await logOf(board, 0)).length >= 40, 'some history first');
    // Replay of the history and the live tail overlap here: the stream must stitch them without a seam.
    const sub = subscribe(d, { board, since: 0 });
    await sub.opened;
    await Promise.all(writers);
    const log = await logOf(board, 0);
    assert.equal(log.length, 240);
    await waitFor(() => sub.events.length >= log.length, 'all 240 events');
    sub.close();
    assert.deepEqual(seqs(sub.events), seqs(log));
  });

  test('?since works like Last-Event-ID, and Last-Event-ID wins when a reconnecting client sends both', async () => {
    const id = await live('since', 'for since');
    const log = await logOf('since', 0);
    const bySince = subscribe(d, { board: 'since', since: log[0]!.seq });
    const both = subscribe(d, { board: 'since', since: 0, lastEventId: log[1]!.seq });
    await waitFor(() => bySince.events.length === 2 && both.events.length === 1, 'the replays');
    bySince.close();
    both.close();
    assert.deepEqual(
      bySince.events.map((e) => e.type),
      ['task.claimed', 'task.completed'],
    );
    assert.deepEqual(
      both.events.map((e) => [e.task_id, e.type]),
      [[id, 'task.completed']],
    );
  });

  test('a stream without a board carries every board; with one, only that board', async () => {
    const all = subscribe(d);
    const one = subscribe(d, { board: 'only-x' });
    await Promise.all([all.opened, one.opened]);
    const y = await post('only-y', 'on y');
    const x = await post('only-x', 'on x');
    await waitFor(() => all.events.some((e) => e.task_id === x) && one.events.some((e) => e.task_id === x), 'x');
    all.close();
    one.close();
    assert.ok(all.events.some((e) => e.task_id === y));
    assert.deepEqual(
      one.events.map((e) => e.task_id),
      [x],
    );
  });

  test('the JSON form pages the log for programs: events after `since`, at most `limit`, and next_since', async () => {
    const board = 'paged';
    for (let i = 0; i < 5; i++) await post(board, `p${i}`);
    const page1 = await call('GET', `/v1/events?format=json&board=${board}&limit=3`);
    assert.equal(page1.status, 200);
    assert.equal(page1.body.events.length, 3);
    const page2 = await call('GET', `/v1/events?format=json&board=${board}&since=${page1.body.next_since}&limit=3`);
    assert.equal(page2.body.events.length, 2);
    assert.ok(page2.body.events[0].seq > page1.body.next_since);
    const viaAccept = await d.fetch(`/v1/events?board=${board}&limit=1`, { headers: { accept: 'application/json' } });
    assert.equal(((await viaAccept.json()) as any).events.length, 1);
  });

  test('a bad since or Last-Event-ID is invalid_request, and the stream needs the token', async () => {
    const bad = await d.fetch('/v1/events', { headers: { 'last-event-id': 'abc' } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).error.code, 'invalid_request');
    const anonymous = await fetch(`${d.url}/v1/events`);
    assert.equal(anonymous.status, 401);
  });

  test('open streams end when the daemon stops, so shutdown is not held up', async () => {
    const own = await spawnDaemon();
    const sub = subscribe(own);
    await sub.opened;
    const poll = own.fetch('/v1/claim', { method: 'POST', json: { agent: 'late', board: 'none', wait_s: 60 } });
    await waitFor(async () => {
      const res = await own.fetch('/v1/agents?board=none');
      return (((await res.json()) as any).agents as { name: string }[]).some((a) => a.name === 'late');
    }, 'the long-poll to start waiting');
    assert.equal(await own.stop(), 0);
    await sub.ended;
    // The waiting claim was let go (204) rather than keeping the daemon alive for a minute.
    assert.equal((await poll).status, 204);
  });
});
