import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness, TEST_PORT } from '../support/http.js';

describe('the HTTP guard', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('a request without the token is refused with 401 unauthorized', async () => {
    const res = await h.req('GET', '/v1/tasks', undefined, { authorization: '' });
    assert.equal(res.status, 401);
    assert.equal(res.json.error.code, 'unauthorized');
  });

  test('a wrong token is refused like a missing one', async () => {
    const res = await h.req('GET', '/v1/tasks', undefined, { authorization: 'Bearer nope' });
    assert.equal(res.status, 401);
  });

  test('health answers without a token', async () => {
    const res = await h.req('GET', '/v1/health', undefined, { authorization: '' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { ok: true, version: 'test', store: 'sqlite' });
  });

  test('a foreign Host header is refused with 403 forbidden_host, even for health', async () => {
    for (const url of ['/v1/health', '/v1/tasks']) {
      const res = await h.req('GET', url, undefined, { host: `evil.example:${TEST_PORT}` });
      assert.equal(res.status, 403);
      assert.equal(res.json.error.code, 'forbidden_host');
    }
  });

  test('loopback Host names with the daemon port are accepted', async () => {
    for (const host of [`localhost:${TEST_PORT}`, `[::1]:${TEST_PORT}`, `127.0.0.1:${TEST_PORT}`]) {
      const res = await h.req('GET', '/v1/tasks', undefined, { host });
      assert.equal(res.status, 200, host);
    }
  });

  test('a foreign Origin is refused with 403 forbidden_origin and writes nothing', async () => {
    const res = await h.req('POST', '/v1/tasks', { title: 'x', agent: 'a' }, { origin: 'https://evil.example' });
    assert.equal(res.status, 403);
    assert.equal(res.json.error.code, 'forbidden_origin');
    const list = await h.req('GET', '/v1/tasks');
    assert.equal(list.json.tasks.length, 0);
  });

  test("the daemon's own origin is accepted", async () => {
    const res = await h.req('GET', '/v1/tasks', undefined, { origin: `http://127.0.0.1:${TEST_PORT}` });
    assert.equal(res.status, 200);
  });
});
