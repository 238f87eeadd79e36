import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness } from '../support/http.js';

describe('locks over HTTP, in process (SPEC §4 /v1/locks)', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(async () => {
    await h.app.close();
    await h.store.close();
  });

  test('two agents locking overlapping sets at once: one 201, one 409 lock_conflict naming the holder', async () => {
    const [a, b] = await Promise.all([
      h.req('POST', '/v1/locks', { agent: 'alice', resources: ['x/a.ts', 'x/b.ts'], board: 'race' }),
      h.req('POST', '/v1/locks', { agent: 'bob', resources: ['x/'], board: 'race' }),
    ]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [201, 409]);
    const [win, lose] = a.status === 201 ? [a, b] : [b, a];
    const winner = a.status === 201 ? 'alice' : 'bob';
    assert.deepEqual(Object.keys(win.json).sort(), ['lease_until', 'lock_id', 'resources']);
    assert.equal(lose.json.error.code, 'lock_conflict');
    assert.match(lose.json.error.message, new RegExp(`held by ${winner}`));
    for (const c of lose.json.error.conflicts) {
      assert.equal(c.holder, winner);
      assert.equal(c.lock_id, win.json.lock_id);
      assert.equal(c.lease_until, win.json.lease_until);
    }
    const list = await h.req('GET', '/v1/locks?board=race');
    assert.deepEqual(
      list.json.locks.map((l: { agent: string }) => l.agent),
      [winner],
    );
  });

  test('renew answers the new lease_until; DELETE answers released: true, twice; then renew is 404', async () => {
    const { json: l } = await h.req('POST', '/v1/locks', { agent: 'alice', resources: ['r.ts'], lease_s: 30 });
    const renewed = await h.req('POST', `/v1/locks/${l.lock_id}/renew`, { lease_s: 600 });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.json.lease_until, new Date(h.clock.now() + 600_000).toISOString());
    for (let i = 0; i < 2; i++) {
      const del = await h.req('DELETE', `/v1/locks/${l.lock_id}`);
      assert.equal(del.status, 200);
      assert.deepEqual(del.json, { released: true });
    }
    const gone = await h.req('POST', `/v1/locks/${l.lock_id}/renew`, {});
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error.code, 'not_found');
  });

  test('a path outside the root or an absolute path is 400 invalid_request naming which one and why', async () => {
    const res = await h.req('POST', '/v1/locks', {
      agent: 'alice',
      resources: ['fine.ts', '/home/me/repo/x.ts', '../up'],
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
    assert.deepEqual(
      res.json.error.issues.map((i: { path: string }) => i.path),
      ['resources.1', 'resources.2'],
    );
    assert.match(res.json.error.message, /absolute — give a path relative to the repository root/);
    assert.match(res.json.error.message, /climbs out of the repository root/);
  });

  test('claim with files over HTTP: a held file answers 409 lock_conflict and the task stays queued', async () => {
    const { json: created } = await h.req('POST', '/v1/tasks', { title: 'edit shared', agent: 'alice', board: 'cf' });
    const id = created.task.id;
    await h.req('POST', '/v1/locks', { agent: 'carol', resources: ['shared.ts'], board: 'cf' });
    const refused = await h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'bob', files: ['shared.ts'] });
    assert.equal(refused.status, 409);
    assert.equal(refused.json.error.code, 'lock_conflict');
    assert.equal((await h.req('GET', `/v1/tasks/${id}`)).json.task.state, 'queued');
    const ok = await h.req('POST', `/v1/tasks/${id}/claim`, { agent: 'bob', files: ['mine.ts'] });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json.lock.resources, ['mine.ts']);
    const agents = await h.req('GET', '/v1/agents?board=cf');
    const bob = agents.json.agents.find((a: { name: string }) => a.name === 'bob');
    assert.deepEqual(bob.locks, ['mine.ts']);
  });

  test('the OpenAPI document lists the four lock routes, POST /v1/locks answering 201', async () => {
    const doc = (await h.req('GET', '/v1/openapi.json')).json;
    assert.ok(doc.paths['/v1/locks'].post.responses['201']);
    assert.ok(doc.paths['/v1/locks'].get);
    assert.ok(doc.paths['/v1/locks/{lock_id}/renew'].post);
    assert.ok(doc.paths['/v1/locks/{lock_id}'].delete);
    assert.equal(doc.paths['/v1/locks/{lock_id}'].delete.requestBody, undefined);
  });
});
