import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tokenMatcher } from '../../src/server/http/guard.js';
import { makeSqliteStore } from '../support/ctx.js';
import { type HttpHarness, httpHarness, TEST_PORT, TEST_TOKEN } from '../support/http.js';

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
    assert.deepEqual(res.json, { ok: true, version: 'test', store: 'sqlite', durability: 'full' });
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

  test('every malformed or wrong credential is refused; the Bearer scheme is case-insensitive', async () => {
    const flipped = `${TEST_TOKEN.slice(0, -1)}${TEST_TOKEN.endsWith('f') ? 'e' : 'f'}`;
    const refused = [
      '',
      'Bearer',
      'Bearer ',
      `Bearer ${TEST_TOKEN.slice(0, -1)}`,
      `Bearer ${TEST_TOKEN}x`,
      `Bearer ${flipped}`,
      `Bearer ${TEST_TOKEN.toUpperCase()}`,
      `Bearer ${TEST_TOKEN} ${TEST_TOKEN}`,
      `Bearer ${'x'.repeat(4096)}`,
      `Basic ${TEST_TOKEN}`,
      `Token ${TEST_TOKEN}`,
      TEST_TOKEN,
      `Bearer:${TEST_TOKEN}`,
      `XBearer ${TEST_TOKEN}`,
    ];
    for (const authorization of refused) {
      const res = await h.req('GET', '/v1/tasks', undefined, { authorization });
      assert.equal(res.status, 401, authorization.slice(0, 40));
      assert.equal(res.json.error.code, 'unauthorized');
    }
    for (const authorization of [`bearer ${TEST_TOKEN}`, `BEARER ${TEST_TOKEN}`, `Bearer  ${TEST_TOKEN}`]) {
      const res = await h.req('GET', '/v1/tasks', undefined, { authorization });
      assert.equal(res.status, 200, authorization);
    }
    console.log(`# credentials tried: ${refused.length} refused, 3 accepted`);
  });

  test('an empty daemon token is never a key: building the guard with one fails', () => {
    assert.throws(() => tokenMatcher(''), /empty/);
    assert.throws(() => tokenMatcher('  '), /empty/);
  });

  test('a percent-encoded path that routes to /v1 or /mcp still needs the token', async () => {
    // The router decodes %76 to "v": these reach /v1/tasks, /v1/openapi.json and /mcp.
    for (const url of ['/%761/tasks', '/v%31/tasks', '/%76%31/openapi.json', '/mc%70', '/%6dcp']) {
      const res = await h.req('GET', url, undefined, { authorization: '' });
      assert.equal(res.status, 401, url);
      assert.equal(res.json.error.code, 'unauthorized');
    }
    const post = await h.req('POST', '/%761/tasks', { title: 'sneaked in', agent: 'a' }, { authorization: '' });
    assert.equal(post.status, 401);
    const list = await h.req('GET', '/v1/tasks');
    assert.equal(list.json.tasks.filter((t: { title: string }) => t.title === 'sneaked in').length, 0);
  });

  test('a URL no route matches needs the token too; with it the answer is 404', async () => {
    assert.equal((await h.req('GET', '/v1/nope', undefined, { authorization: '' })).status, 401);
    assert.equal((await h.req('GET', '/favicon.ico', undefined, { authorization: '' })).status, 401);
    assert.equal((await h.req('GET', '/v1/nope')).status, 404);
  });

  test('the dashboard page and its assets load without a token (the page sends it to /v1 itself)', async () => {
    const page = await h.req('GET', '/', undefined, { authorization: '' });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const asset = /src="\/ui\/([^"]+)"/.exec(page.text)?.[1];
    assert.ok(asset, 'the page names a script under /ui/');
    assert.equal((await h.req('GET', `/ui/${asset}`, undefined, { authorization: '' })).status, 200);
  });

  test('a foreign Origin on a CORS preflight is refused and gets no Access-Control-Allow-Origin', async () => {
    const res = await h.app.inject({
      method: 'OPTIONS',
      url: '/v1/tasks',
      headers: {
        host: `127.0.0.1:${TEST_PORT}`,
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden_origin');
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });
});

describe('the HTTP guard with --public-url (SPEC §16)', () => {
  let h: HttpHarness;
  const PUB = { host: 'coord.example.test', 'x-forwarded-proto': 'https' };
  before(async () => {
    h = await httpHarness(makeSqliteStore, { publicUrl: 'https://coord.example.test/coord' });
  });
  after(() => h.app.close());

  test('the public prefix is stripped for public requests only', async () => {
    const prm = await h.req('GET', '/.well-known/oauth-protected-resource/coord/mcp', undefined, PUB);
    assert.equal(prm.json.resource, 'https://coord.example.test/coord/mcp');
    assert.equal((await h.req('POST', '/coord/mcp', {}, PUB)).status, 401);
    assert.equal((await h.req('GET', '/coord/v1/tasks', undefined, PUB)).status, 404);
    assert.equal((await h.req('GET', '/coord/v1/tasks')).status, 404, 'a local request keeps its path');
    assert.equal((await h.req('GET', '/v1/tasks')).status, 200);
  });

  test('a loopback request with a forwarding header is public: /v1 is 404 whatever the token', async () => {
    for (const header of [
      'x-forwarded-for',
      'x-forwarded-host',
      'x-forwarded-proto',
      'forwarded',
      'x-forwarded-whatever',
    ]) {
      const res = await h.req('GET', '/v1/tasks', undefined, { [header]: 'x' });
      assert.equal(res.status, 404, header);
    }
  });

  test('the OAuth edge answers locally without the token, the rest of /v1 still needs it', async () => {
    const res = await h.req('GET', '/.well-known/oauth-authorization-server', undefined, { authorization: '' });
    assert.equal(res.status, 200);
    assert.equal((await h.req('GET', '/v1/tasks', undefined, { authorization: '' })).status, 401);
    assert.equal((await h.req('POST', '/v1/connect', {}, { authorization: '' })).status, 401);
  });

  test('the public origin may post to the OAuth edge through the tunnel, never to the local API', async () => {
    const origin = { origin: 'https://coord.example.test' };
    assert.equal(
      (await h.req('GET', '/.well-known/oauth-authorization-server', undefined, { ...PUB, ...origin })).status,
      200,
    );
    const local = await h.req('POST', '/v1/tasks', { title: 'x', agent: 'a' }, origin);
    assert.equal(local.status, 403);
    assert.equal(local.json.error.code, 'forbidden_origin');
  });
});

describe('the HTTP guard without --public-url', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness();
  });
  after(() => h.app.close());

  test('forwarding headers change nothing and there is no OAuth edge', async () => {
    assert.equal((await h.req('GET', '/v1/tasks', undefined, { 'x-forwarded-for': '203.0.113.9' })).status, 200);
    assert.equal(
      (await h.req('GET', '/.well-known/oauth-authorization-server', undefined, { authorization: '' })).status,
      401,
    );
    assert.equal((await h.req('GET', '/.well-known/oauth-authorization-server')).status, 404);
    assert.equal((await h.req('POST', '/v1/connect', {})).json.error.code, 'invalid_request');
  });
});
