import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HttpHarness, httpHarness } from '../support/http.js';

describe('bad input gets a clear error and loses nothing', () => {
  let h: HttpHarness;
  const eventsNow = async () =>
    (await h.call((await import('../../src/core/operations.js')).operations.listEvents, {})).events.length;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('malformed JSON answers 400 invalid_json', async () => {
    const res = await h.req('POST', '/v1/tasks', '{"title": "x",', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_json');
    assert.equal(typeof res.json.error.message, 'string');
  });

  test('missing and wrong-typed fields answer invalid_request listing each field', async () => {
    const res = await h.req('POST', '/v1/tasks', { title: 42, priority: 'high' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
    const paths = res.json.error.issues.map((i: { path: string }) => i.path).sort();
    assert.deepEqual(paths, ['agent', 'priority', 'title']);
  });

  test('a body that is not a JSON object is invalid_request', async () => {
    const res = await h.req('POST', '/v1/tasks', '[1,2]', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
  });

  test('a 3 MiB body answers 413 too_large', async () => {
    const big = JSON.stringify({ title: 'x', agent: 'a', body: 'y'.repeat(3 * 1024 * 1024) });
    const res = await h.req('POST', '/v1/tasks', big, { 'content-type': 'application/json' });
    assert.equal(res.status, 413);
    assert.equal(res.json.error.code, 'too_large');
  });

  test('an unknown task answers 404 not_found', async () => {
    const res = await h.req('GET', '/v1/tasks/zzzzzzzz');
    assert.equal(res.status, 404);
    assert.equal(res.json.error.code, 'not_found');
  });

  test('an unknown route answers 404 not_found in the error shape', async () => {
    const res = await h.req('GET', '/v1/nope');
    assert.equal(res.status, 404);
    assert.equal(res.json.error.code, 'not_found');
  });

  test('an agent name with forbidden characters is invalid_request', async () => {
    const res = await h.req('POST', '/v1/claim', { agent: 'bad name!' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.issues[0].path, 'agent');
  });

  test('wait_s above 60 is invalid_request', async () => {
    const res = await h.req('POST', '/v1/claim', { agent: 'a', wait_s: 61 });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.issues[0].path, 'wait_s');
  });

  test('nothing is written by any rejected request', async () => {
    const before = await eventsNow();
    await h.req('POST', '/v1/tasks', '{oops', { 'content-type': 'application/json' });
    await h.req('POST', '/v1/tasks', { title: '', agent: 'a' });
    await h.req('POST', '/v1/tasks', { title: 'x', agent: 'a' }, { authorization: '' });
    await h.req('POST', '/v1/tasks', { title: 'x', agent: 'a' }, { host: 'evil:1' });
    await h.req('POST', '/v1/tasks/zzzzzzzz/claim', { agent: 'a' });
    assert.equal(await eventsNow(), before);
    const list = await h.req('GET', '/v1/tasks');
    assert.equal(list.json.tasks.length, 0);
  });

  test('errors never carry a stack trace', async () => {
    const res = await h.req('POST', '/v1/tasks', '{', { 'content-type': 'application/json' });
    assert.doesNotMatch(res.text, /at .*\.ts:\d+/);
  });
});
