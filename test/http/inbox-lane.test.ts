/**
 * The inbox's lane (server/http/inbox.ts) answers `GET /v1/inbox` before fastify: over a real socket, every
 * answer it gives must be the one fastify's route gives for the same request, and everything it must not take
 * (refusals, bad input, URLs it cannot read without doubt) must reach fastify. Which path answered is seen from
 * a fastify onResponse hook: it runs only for requests fastify handled.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildHttpApp } from '../../src/server/http/app.js';
import { type Harness, harness, makeSqliteStore } from '../support/ctx.js';
import { TEST_TOKEN } from '../support/http.js';

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

describe('HTTP: the inbox lane', () => {
  let h: Harness;
  let app: FastifyInstance;
  let base = '';
  let port = 0;
  let viaFastify = 0;

  before(async () => {
    h = await harness(makeSqliteStore);
    app = buildHttpApp({ ctx: h.ctx, token: TEST_TOKEN, version: 'test', port: () => port });
    app.addHook('onResponse', async () => {
      viaFastify++;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
    const post = async (body: object) =>
      (await fetch(`${base}/v1/tasks`, { method: 'POST', headers: auth(), body: JSON.stringify(body) })).json();
    const first = (await post({ agent: 'alice', title: 'first task' })) as { task: { id: string } };
    await post({ agent: 'alice', title: 'second task', for_agent: 'bob' });
    await post({ agent: 'alice', title: 'blocked task', blocked_by: [first.task.id] });
    await fetch(`${base}/v1/tasks/${first.task.id}/claim`, {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ agent: 'carol' }),
    });
  });
  after(() => app.close());

  const auth = (token = TEST_TOKEN) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

  async function get(url: string, headers: Record<string, string> = auth()): Promise<Answer & { fastify: boolean }> {
    const before = viaFastify;
    const res = await fetch(`${base}${url}`, { headers });
    const body = await res.text();
    // onResponse runs after the answer is written: give it its turn.
    await new Promise((r) => setImmediate(r));
    return { status: res.status, type: res.headers.get('content-type'), body, fastify: viaFastify > before };
  }

  // The same request twice: as the lane reads it, and %-escaped (`agent=%62ob` is `agent=bob` to fastify's
  // parser), which the lane leaves to fastify.
  const cases: [string, string][] = [
    ['/v1/inbox?agent=bob', '/v1/inbox?agent=%62ob'],
    ['/v1/inbox?agent=carol', '/v1/inbox?agent=%63arol'],
    ['/v1/inbox?agent=bob&format=text', '/v1/inbox?agent=%62ob&format=text'],
    ['/v1/inbox?agent=carol&format=text', '/v1/inbox?agent=%63arol&format=text'],
    ['/v1/inbox?agent=bob&since=1&format=text', '/v1/inbox?agent=%62ob&since=1&format=text'],
    ['/v1/inbox?agent=dave&board=other', '/v1/inbox?agent=%64ave&board=other'],
    ['/v1/inbox?agent=dave&board=other&format=text', '/v1/inbox?agent=%64ave&board=other&format=text'],
  ];

  test('the lane answers a plain inbox query exactly as fastify answers the same query', async () => {
    for (const [plain, escaped] of cases) {
      const lane = await get(plain);
      const route = await get(escaped);
      assert.equal(lane.fastify, false, `${plain} went to fastify`);
      assert.equal(route.fastify, true, `${escaped} did not reach fastify`);
      assert.equal(lane.status, 200, plain);
      assert.deepEqual({ ...lane, fastify: 0 }, { ...route, fastify: 0 }, plain);
    }
    const text = await get('/v1/inbox?agent=bob&format=text');
    assert.match(text.body, /second task/);
    assert.match(text.body, /1 blocked/);
  });

  test('refusals, bad input and URLs the lane cannot read without doubt are answered by fastify', async () => {
    const refused: [string, Record<string, string>, number, string][] = [
      ['/v1/inbox?agent=bob', auth('wrong-token-0123456789abcdef'), 401, 'unauthorized'],
      ['/v1/inbox?agent=bob', {}, 401, 'unauthorized'],
      ['/v1/inbox?agent=bob', { ...auth(), origin: 'http://evil.example' }, 403, 'forbidden_origin'],
      ['/v1/inbox?agent=', auth(), 400, 'invalid_request'],
      ['/v1/inbox?agent=bob&since=-1', auth(), 400, 'invalid_request'],
      ['/v1/inbox?agent=bob&format=xml', auth(), 400, 'invalid_request'],
      ['/v1/inbox', auth(), 400, 'invalid_request'],
    ];
    for (const [url, headers, status, code] of refused) {
      const a = await get(url, headers);
      assert.equal(a.fastify, true, `${url} was answered by the lane`);
      assert.equal(a.status, status, url);
      assert.equal(JSON.parse(a.body).error.code, code, url);
    }
    // Repeated keys, `+` and odd spellings of the path go to fastify too, which answers them as ever.
    for (const url of ['/v1/inbox?agent=bob&agent=bob', '/v1/inbox?agent=b+b', '/v1/%69nbox?agent=bob']) {
      const a = await get(url);
      assert.equal(a.fastify, true, `${url} was answered by the lane`);
    }
  });

  test('a store that fails answers the same error by the lane as by fastify', async () => {
    await h.store.close();
    const lane = await get('/v1/inbox?agent=bob');
    const route = await get('/v1/inbox?agent=%62ob');
    assert.equal(lane.fastify, false);
    assert.ok(lane.status >= 500, `status ${lane.status}`);
    assert.deepEqual({ ...lane, fastify: 0 }, { ...route, fastify: 0 });
  });
});
