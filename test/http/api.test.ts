import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness } from '../support/http.js';

describe('the HTTP API', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('posting answers 201 created, and the same idempotency key and payload answers 200 with the same task', async () => {
    const body = { title: 'ship it', agent: 'alice', idempotency_key: 'k-1' };
    const first = await h.req('POST', '/v1/tasks', body);
    assert.equal(first.status, 201);
    assert.equal(first.json.created, true);
    const again = await h.req('POST', '/v1/tasks', { ...body, agent: 'bob' });
    assert.equal(again.status, 200);
    assert.equal(again.json.created, false);
    assert.equal(again.json.task.id, first.json.task.id);
    const other = await h.req('POST', '/v1/tasks', { ...body, title: 'something else' });
    assert.equal(other.status, 409);
    assert.equal(other.json.error.code, 'idempotency_conflict');
  });

  test('claim-next answers 204 when nothing is claimable', async () => {
    const res = await h.req('POST', '/v1/claim', { agent: 'idle', board: 'empty-board' });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
  });

  test('a claim answers the claim_id only to the claimer; the task JSON never shows it', async () => {
    const { json } = await h.req('POST', '/v1/tasks', { title: 'secret claim', agent: 'alice', board: 'b2' });
    const claim = await h.req('POST', `/v1/tasks/${json.task.id}/claim`, { agent: 'bob' });
    assert.equal(claim.status, 200);
    assert.match(claim.json.claim_id, /^c_/);
    assert.equal(claim.json.fence, 1);
    const shown = await h.req('GET', `/v1/tasks/${json.task.id}`);
    assert.ok(!shown.text.includes(claim.json.claim_id));
    const lost = await h.req('POST', `/v1/tasks/${json.task.id}/claim`, { agent: 'carol' });
    assert.equal(lost.status, 409);
    assert.equal(lost.json.error.code, 'claimed');
    assert.equal(lost.json.error.holder, 'bob');
  });

  test('heartbeat, submit and replay go through the fencing token', async () => {
    const { json } = await h.req('POST', '/v1/tasks', { title: 'fenced', agent: 'alice', board: 'b3' });
    const claim = await h.req('POST', '/v1/claim', { agent: 'bob', board: 'b3', lease_s: 60 });
    assert.equal(claim.json.task.id, json.task.id);
    const hb = await h.req('POST', `/v1/tasks/${json.task.id}/heartbeat`, { claim_id: claim.json.claim_id });
    assert.equal(hb.status, 200);
    const submit = { claim_id: claim.json.claim_id, status: 'completed', result: { ok: 1 } };
    const first = await h.req('POST', `/v1/tasks/${json.task.id}/submit`, submit);
    assert.equal(first.json.replayed, false);
    const second = await h.req('POST', `/v1/tasks/${json.task.id}/submit`, submit);
    assert.equal(second.json.replayed, true);
    const wrong = await h.req('POST', `/v1/tasks/${json.task.id}/heartbeat`, { claim_id: 'c_not-mine' });
    assert.equal(wrong.status, 409);
    assert.equal(wrong.json.error.code, 'stale_claim');
  });

  test('artifacts are idempotent by id and bytes, and download as uploaded', async () => {
    const { json } = await h.req('POST', '/v1/tasks', { title: 'with artifact', agent: 'alice', board: 'b4' });
    const claim = await h.req('POST', `/v1/tasks/${json.task.id}/claim`, { agent: 'bob' });
    const put = (bytes: string) =>
      h.req('PUT', `/v1/tasks/${json.task.id}/artifacts/log-1`, Buffer.from(bytes), {
        'content-type': 'text/plain',
        'coord-claim-id': claim.json.claim_id,
        'coord-name': 'build.log',
      });
    const first = await put('hello');
    assert.equal(first.status, 201);
    assert.equal(first.json.artifact.size, 5);
    assert.equal(first.json.artifact.name, 'build.log');
    assert.equal((await put('hello')).status, 200);
    const conflict = await put('other');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.json.error.code, 'artifact_conflict');
    const got = await h.req('GET', `/v1/tasks/${json.task.id}/artifacts/log-1`);
    assert.equal(got.text, 'hello');
    assert.match(String(got.headers['content-type']), /text\/plain/);
    const stale = await h.req('PUT', `/v1/tasks/${json.task.id}/artifacts/log-2`, Buffer.from('x'), {
      'coord-claim-id': 'c_stale',
    });
    assert.equal(stale.json.error.code, 'stale_claim');
  });

  test('the inbox answers compact text with ?format=text and JSON otherwise', async () => {
    const empty = await h.req('GET', '/v1/inbox?agent=zed&board=inbox-b&format=text');
    assert.match(String(empty.headers['content-type']), /text\/plain/);
    assert.ok(Buffer.byteLength(empty.text) <= 64, empty.text);
    await h.req('POST', '/v1/tasks', { title: 'T'.repeat(80), agent: 'alice', board: 'inbox-b' });
    const text = await h.req('GET', '/v1/inbox?agent=zed&board=inbox-b&format=text');
    const lines = text.text.split('\n');
    assert.equal(lines.length, 2);
    assert.ok(Buffer.byteLength(lines[1] ?? '') <= 140, lines[1]);
    const json = await h.req('GET', '/v1/inbox?agent=zed&board=inbox-b');
    assert.equal(json.json.tasks.length, 1);
    const since = await h.req('GET', `/v1/inbox?agent=zed&board=inbox-b&format=text&since=${json.json.cursor}`);
    assert.match(since.text, /^no changes/);
  });

  test('the OpenAPI document is 3.1 and describes every route with its schemas', async () => {
    const res = await h.req('GET', '/v1/openapi.json');
    assert.equal(res.json.openapi, '3.1.0');
    const paths = Object.keys(res.json.paths);
    for (const p of ['/v1/tasks', '/v1/tasks/{id}/claim', '/v1/claim', '/v1/tasks/{id}/submit', '/v1/inbox']) {
      assert.ok(paths.includes(p), p);
    }
    const create = res.json.paths['/v1/tasks'].post;
    assert.deepEqual(create.requestBody.content['application/json'].schema.required.sort(), ['agent', 'title']);
    assert.equal(create.operationId, 'create_task');
  });
});
