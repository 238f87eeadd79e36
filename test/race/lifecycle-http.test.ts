import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

/** The lifecycle rules over a real daemon with the real clock: leases, replay, cancel, ttl, privacy, handoff. */
describe('task lifecycle over real HTTP', () => {
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
  const post = async (body: Record<string, unknown>) =>
    (await call('POST', '/v1/tasks', { agent: 'poster', board: 'life', ...body })).body.task.id as string;

  test('lease takeover: A goes silent on a 1 s lease, B polling every 100 ms wins just after, A is fenced, fence goes 1 → 2', async () => {
    const id = await post({ title: 'takeover' });
    const a = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'A', lease_s: 1 });
    assert.equal(a.status, 200);
    assert.equal(a.body.fence, 1);
    const started = Date.now();
    let b: { status: number; body: any } | undefined;
    let tries = 0;
    for (;;) {
      tries++;
      b = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'B', lease_s: 30 });
      if (b.status === 200) break;
      assert.equal(b.body.error.code, 'claimed');
      assert.equal(b.body.error.holder, 'A');
      await sleep(100);
    }
    const waited = Date.now() - started;
    console.log(`# B took over after ${waited} ms and ${tries} tries`);
    assert.equal(b.body.fence, 2);
    assert.ok(tries > 1, 'A held the task while its lease was live');
    const late = await call('POST', `/v1/tasks/${id}/submit`, {
      claim_id: a.body.claim_id,
      status: 'completed',
      result: 'from A',
    });
    assert.equal(late.status, 409);
    assert.ok(['stale_claim', 'lease_expired'].includes(late.body.error.code), late.body.error.code);
    const ok = await call('POST', `/v1/tasks/${id}/submit`, {
      claim_id: b.body.claim_id,
      status: 'completed',
      result: 'from B',
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.task.result, 'from B');
    assert.equal(ok.body.task.attempts, 2);
  });

  test('submit replay: four identical submits succeed (the last three replayed), a fifth different one is result_mismatch', async () => {
    const id = await post({ title: 'replay' });
    const c = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'A' });
    const submit = (result: unknown) =>
      call('POST', `/v1/tasks/${id}/submit`, { claim_id: c.body.claim_id, status: 'completed', result });
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await submit({ files: ['a.ts'], ok: true }));
    assert.deepEqual(
      replies.map((r) => [r.status, r.body.replayed]),
      [
        [200, false],
        [200, true],
        [200, true],
        [200, true],
      ],
    );
    const fifth = await submit({ files: ['b.ts'], ok: true });
    assert.equal(fifth.status, 409);
    assert.equal(fifth.body.error.code, 'result_mismatch');
  });

  test('cancel fences a later submit', async () => {
    const id = await post({ title: 'to cancel' });
    const c = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'A' });
    assert.equal((await call('POST', `/v1/tasks/${id}/cancel`, { agent: 'poster', reason: 'dup' })).status, 200);
    const late = await call('POST', `/v1/tasks/${id}/submit`, { claim_id: c.body.claim_id, status: 'completed' });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'cancelled');
  });

  test('a task past its ttl becomes expired and cannot be claimed', async () => {
    const id = await post({ title: 'short lived', ttl_s: 1 });
    let state = 'queued';
    while (state !== 'expired') {
      await sleep(100);
      state = (await call('GET', `/v1/tasks/${id}`)).body.task.state;
    }
    const claim = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'A' });
    assert.equal(claim.status, 409);
    assert.equal(claim.body.error.code, 'expired');
  });

  test('a private task is not_found to others and claimable by its target', async () => {
    const id = await post({ title: 'for bob only', for: 'bob' });
    const peek = await call('GET', `/v1/tasks/${id}?agent=eve`);
    assert.equal(peek.status, 404);
    assert.equal(peek.body.error.code, 'not_found');
    assert.equal((await call('POST', `/v1/tasks/${id}/claim`, { agent: 'eve' })).body.error.code, 'not_found');
    assert.equal((await call('POST', `/v1/tasks/${id}/claim`, { agent: 'bob' })).status, 200);
  });

  test('handoff: release with to makes the task claimable only by the named successor', async () => {
    const id = await post({ title: 'handoff', board: 'handoff' });
    const a = await call('POST', `/v1/tasks/${id}/claim`, { agent: 'A' });
    const rel = await call('POST', `/v1/tasks/${id}/release`, { claim_id: a.body.claim_id, to: 'B' });
    assert.equal(rel.status, 200);
    assert.equal(rel.body.task.state, 'queued');
    assert.equal(rel.body.task.for, 'B');
    assert.equal((await call('POST', '/v1/claim', { agent: 'C', board: 'handoff' })).status, 204);
    assert.equal((await call('POST', `/v1/tasks/${id}/claim`, { agent: 'C' })).body.error.code, 'not_found');
    const b = await call('POST', '/v1/claim', { agent: 'B', board: 'handoff' });
    assert.equal(b.status, 200);
    assert.equal(b.body.task.id, id);
  });
});
