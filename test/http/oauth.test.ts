/**
 * The OAuth edge in process (SPEC §16): every refusal answers in the OAuth form and changes nothing.
 * Requests "through the public URL" carry its Host and X-Forwarded-Proto, as a tunnel's do.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildHttpApp } from '../../src/server/http/app.js';
import { McpHttp } from '../../src/server/mcp/http.js';
import { parsePublicUrl } from '../../src/server/oauth/public-site.js';
import { RateLimit } from '../../src/server/oauth/rate-limit.js';
import { makeSqliteStore } from '../support/ctx.js';
import { type HttpHarness, httpHarness, TEST_PORT, TEST_TOKEN } from '../support/http.js';

const SITE = 'https://coord.example.test';
const RESOURCE = `${SITE}/mcp`;
const CALLBACK = 'https://claude.ai/api/mcp/auth_callback';
/** What a tunnel sends: the public Host, the scheme it terminated, no coord token. */
const PUB = { host: 'coord.example.test', 'x-forwarded-proto': 'https', authorization: '' };
const FORM = { ...PUB, 'content-type': 'application/x-www-form-urlencoded' };

const b64 = (b: Buffer) => b.toString('base64url');
function pkce() {
  const verifier = b64(randomBytes(32));
  return { verifier, challenge: b64(createHash('sha256').update(verifier).digest()) };
}
const form = (o: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined) p.set(k, v);
  return p.toString();
};
const MCP_INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

async function register(
  h: HttpHarness,
  body: unknown = { redirect_uris: [CALLBACK], client_name: 'Claude', token_endpoint_auth_method: 'none' },
) {
  return h.req('POST', '/oauth/register', body, PUB);
}

interface Authz {
  client_id: string;
  verifier: string;
  challenge: string;
  params: Record<string, string | undefined>;
}

async function newAuthz(h: HttpHarness, overrides: Record<string, string | undefined> = {}): Promise<Authz> {
  const reg = await register(h);
  assert.equal(reg.status, 201, reg.text);
  const { verifier, challenge } = pkce();
  const params = {
    response_type: 'code',
    client_id: reg.json.client_id as string,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st4te',
    resource: RESOURCE,
    ...overrides,
  };
  return { client_id: reg.json.client_id, verifier, challenge, params };
}

const consentCode = async (h: HttpHarness, board = 'main') =>
  (await h.req('POST', '/v1/connect', { board })).json.code as string;

async function approve(h: HttpHarness, a: Authz, proof: string, extra: Record<string, string> = {}) {
  return h.req(
    'POST',
    '/oauth/authorize',
    form({ ...a.params, board: 'main', agent: 'claude#k3x9', code: proof, decision: 'approve', ...extra }),
    { ...FORM, origin: SITE },
  );
}

const location = (res: { headers: Record<string, unknown> }) => new URL(String(res.headers.location));

async function codeFor(h: HttpHarness, a: Authz): Promise<string> {
  const res = await approve(h, a, await consentCode(h));
  assert.equal(res.status, 303, res.text);
  const code = location(res).searchParams.get('code');
  assert.ok(code);
  return code;
}

const token = (h: HttpHarness, body: Record<string, string | undefined>) =>
  h.req('POST', '/oauth/token', form(body), FORM);

async function granted(h: HttpHarness) {
  const a = await newAuthz(h);
  const code = await codeFor(h, a);
  const res = await token(h, {
    grant_type: 'authorization_code',
    code,
    code_verifier: a.verifier,
    client_id: a.client_id,
    redirect_uri: CALLBACK,
    resource: RESOURCE,
  });
  assert.equal(res.status, 200, res.text);
  return { a, code, access: res.json.access_token as string, refresh: res.json.refresh_token as string };
}

/** The grant id of a client (grants made in one instant of the hand clock list in id order). */
const grantOf = async (h: HttpHarness, clientId: string): Promise<string> =>
  (await h.req('GET', '/v1/connectors')).json.connectors.find((c: { client_id: string }) => c.client_id === clientId)
    .id;

const mcp = (h: HttpHarness, bearer: string, headers: Record<string, string> = {}) =>
  h.req('POST', '/mcp', MCP_INIT, {
    ...PUB,
    authorization: `Bearer ${bearer}`,
    accept: 'application/json, text/event-stream',
    ...headers,
  });

describe('OAuth for remote connectors (in process)', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness(makeSqliteStore, {
      publicUrl: SITE,
      oauthLimits: {
        perAddress: new RateLimit(10_000),
        perClient: new RateLimit(10_000),
        consent: new RateLimit(10_000),
      },
    });
    // The MCP SDK's bearer check compares a token's expiry with the real time: start the hand clock there.
    h.clock.advance(Date.now() - h.clock.now());
  });
  after(() => h.app.close());

  test('protected resource metadata is served at both well-known paths and names coord as its server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await h.req('GET', path, undefined, PUB);
      assert.equal(res.status, 200, path);
      assert.equal(res.json.resource, RESOURCE);
      assert.deepEqual(
        res.json.authorization_servers,
        [`${SITE}/`].map((u) => u.replace(/\/$/, '')),
      );
    }
    const as = await h.req('GET', '/.well-known/oauth-authorization-server', undefined, PUB);
    assert.equal(as.json.issuer, SITE);
    assert.deepEqual(as.json.code_challenge_methods_supported, ['S256']);
    assert.equal(as.json.registration_endpoint, `${SITE}/oauth/register`);
  });

  test('the public /mcp without a token is 401 with WWW-Authenticate naming the resource metadata', async () => {
    const res = await h.req('POST', '/mcp', MCP_INIT, PUB);
    assert.equal(res.status, 401);
    assert.match(
      String(res.headers['www-authenticate']),
      /^Bearer .*resource_metadata="https:\/\/coord\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  test("the public /mcp never takes the daemon's own token", async () => {
    const res = await mcp(h, TEST_TOKEN);
    assert.equal(res.status, 401);
    assert.equal(res.json.error, 'invalid_token');
  });

  test('a granted access token opens an MCP session at the public /mcp', async () => {
    const g = await granted(h);
    const res = await mcp(h, g.access);
    assert.equal(res.status, 200, res.text);
    const list = (await h.req('GET', '/v1/connectors')).json.connectors;
    assert.ok(list.some((c: { agent: string }) => c.agent === 'claude#k3x9'));
  });

  test("the public /mcp takes OAuth tokens whatever McpHttp the app is given (none given, or the caller's own)", async () => {
    const g = await granted(h);
    // The harness's app got no McpHttp (the app built one); this one gets its caller's, which knows no OAuth.
    const own = buildHttpApp({
      ctx: h.ctx,
      token: TEST_TOKEN,
      version: 'test',
      port: () => TEST_PORT,
      site: parsePublicUrl(SITE),
      mcp: new McpHttp({ ctx: h.ctx, version: 'test' }),
    });
    for (const app of [h.app, own]) {
      const inject = (bearer: string) =>
        app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            ...PUB,
            authorization: `Bearer ${bearer}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          payload: JSON.stringify(MCP_INIT),
        });
      assert.equal((await inject(g.access)).statusCode, 200, 'a granted token opens a session');
      assert.equal((await inject('coord_cat_unknown')).statusCode, 401, 'an unknown token is 401, not 404');
    }
    await own.close();
  });

  test('an unknown client is invalid_client: a 401 page at /authorize, 401 at /token', async () => {
    const a = await newAuthz(h, { client_id: 'cc_nobody' });
    const page = await h.req('GET', `/oauth/authorize?${form(a.params)}`, undefined, PUB);
    assert.equal(page.status, 401);
    assert.match(page.text, /invalid_client/);
    const t = await token(h, {
      grant_type: 'authorization_code',
      code: 'x',
      code_verifier: a.verifier,
      client_id: 'cc_nobody',
    });
    assert.equal(t.status, 401);
    assert.equal(t.json.error, 'invalid_client');
  });

  test('a confidential client must send its secret: a wrong, missing or malformed one is invalid_client', async () => {
    const reg = await register(h, { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' });
    assert.equal(reg.status, 201);
    const { client_id, client_secret } = reg.json as { client_id: string; client_secret: string };
    assert.match(client_secret, /^coord_ccs_/);
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const ask = (headers: Record<string, string>, extra: Record<string, string> = {}) =>
      h.req('POST', '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'x', ...extra }), {
        ...FORM,
        ...headers,
      });
    for (const [headers, extra] of [
      [{ authorization: basic(client_id, 'wrong') }, {}],
      [{ authorization: basic(client_id, '%') }, {}],
      [{ authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }, {}],
      [{}, { client_id }],
      [{}, { client_id, client_secret: 'wrong' }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const res = await ask(headers, extra);
      assert.equal(res.status, 401, JSON.stringify([headers, extra]));
      assert.equal(res.json.error, 'invalid_client');
    }
    const right = await ask({ authorization: basic(client_id, client_secret) });
    assert.equal(right.status, 400, 'authenticated: the refresh token is what is wrong');
    assert.equal(right.json.error, 'invalid_grant');
  });

  test('a deleted client (revoke --client) is invalid_client, and its tokens end', async () => {
    const g = await granted(h);
    const id = await grantOf(h, g.a.client_id);
    const rev = await h.req('POST', `/v1/connectors/${id}/revoke`, { client: true });
    assert.equal(rev.status, 200, rev.text);
    assert.equal((await mcp(h, g.access)).status, 401);
    const t = await token(h, { grant_type: 'refresh_token', refresh_token: g.refresh, client_id: g.a.client_id });
    assert.equal(t.status, 401);
    assert.equal(t.json.error, 'invalid_client');
  });

  test('revoking a grant takes effect on its next call', async () => {
    const g = await granted(h);
    assert.equal((await mcp(h, g.access)).status, 200);
    const id = await grantOf(h, g.a.client_id);
    await h.req('POST', `/v1/connectors/${id}/revoke`, {});
    assert.equal((await mcp(h, g.access)).status, 401);
  });

  test('a wrong or missing PKCE verifier is refused and spends the code', async () => {
    const a = await newAuthz(h);
    const code = await codeFor(h, a);
    const missing = await token(h, { grant_type: 'authorization_code', code, client_id: a.client_id });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error, 'invalid_request');
    const wrong = await token(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce().verifier,
      client_id: a.client_id,
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error, 'invalid_grant');
    assert.match(wrong.json.error_description, /code_verifier/);
    const right = await token(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: a.verifier,
      client_id: a.client_id,
    });
    assert.equal(right.json.error, 'invalid_grant', 'the code was spent by the wrong verifier');
  });

  test('plain PKCE, or none, is refused back at the redirect URI', async () => {
    for (const o of [
      { code_challenge_method: 'plain' },
      { code_challenge: undefined },
      { code_challenge_method: undefined },
    ]) {
      const a = await newAuthz(h, o);
      const res = await h.req('GET', `/oauth/authorize?${form(a.params)}`, undefined, PUB);
      assert.equal(res.status, 303, JSON.stringify(o));
      const back = location(res);
      assert.equal(back.origin + back.pathname, CALLBACK);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.equal(back.searchParams.get('state'), 'st4te');
    }
  });

  test('a code presented twice is refused and revokes the grant it made', async () => {
    const g = await granted(h);
    const again = await token(h, {
      grant_type: 'authorization_code',
      code: g.code,
      code_verifier: g.a.verifier,
      client_id: g.a.client_id,
    });
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_grant');
    assert.equal((await mcp(h, g.access)).status, 401);
  });

  test('an expired code is refused', async () => {
    const a = await newAuthz(h);
    const code = await codeFor(h, a);
    h.clock.advance(61_000);
    const res = await token(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: a.verifier,
      client_id: a.client_id,
    });
    assert.equal(res.json.error, 'invalid_grant');
    assert.match(res.json.error_description, /expired/);
  });

  test('another redirect URI is a page at /authorize (no redirect) and invalid_grant at /token', async () => {
    const a = await newAuthz(h, { redirect_uri: 'https://evil.example/cb' });
    const page = await h.req('GET', `/oauth/authorize?${form(a.params)}`, undefined, PUB);
    assert.equal(page.status, 400);
    assert.equal(page.headers.location, undefined);
    const b = await newAuthz(h);
    const code = await codeFor(h, b);
    const t = await token(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: b.verifier,
      client_id: b.client_id,
      redirect_uri: 'https://claude.ai/api/mcp/other',
    });
    assert.equal(t.json.error, 'invalid_grant');
  });

  test('a missing or foreign resource is invalid_target', async () => {
    for (const resource of [undefined, 'https://other.example/mcp', `${SITE}/mcp/`]) {
      const a = await newAuthz(h, { resource });
      const res = await h.req('GET', `/oauth/authorize?${form(a.params)}`, undefined, PUB);
      assert.equal(location(res).searchParams.get('error'), 'invalid_target', String(resource));
    }
    const a = await newAuthz(h);
    const code = await codeFor(h, a);
    const t = await token(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: a.verifier,
      client_id: a.client_id,
      resource: 'https://other.example/mcp',
    });
    assert.equal(t.json.error, 'invalid_target');
  });

  test('a refresh token rotates; replaying the spent one revokes the grant', async () => {
    const g = await granted(h);
    const r1 = await token(h, { grant_type: 'refresh_token', refresh_token: g.refresh, client_id: g.a.client_id });
    assert.equal(r1.status, 200, r1.text);
    assert.notEqual(r1.json.refresh_token, g.refresh);
    assert.equal((await mcp(h, r1.json.access_token)).status, 200);
    const replay = await token(h, { grant_type: 'refresh_token', refresh_token: g.refresh, client_id: g.a.client_id });
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
    assert.equal((await mcp(h, r1.json.access_token)).status, 401, 'the replay revoked the whole grant');
    const after = await token(h, {
      grant_type: 'refresh_token',
      refresh_token: r1.json.refresh_token,
      client_id: g.a.client_id,
    });
    assert.equal(after.json.error, 'invalid_grant');
  });

  test('an oversized, malformed or unsafe registration is refused in the OAuth form', async () => {
    const big = await register(h, { redirect_uris: [CALLBACK], client_name: 'x'.repeat(20_000) });
    assert.equal(big.status, 413);
    assert.equal(big.json.error, 'invalid_client_metadata');
    const bad = await h.req('POST', '/oauth/register', '{"redirect_uris": [', {
      ...PUB,
      'content-type': 'application/json',
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error, 'invalid_client_metadata');
    for (const uris of [[], ['http://evil.example/cb'], ['javascript:alert(1)'], ['https://a.example/cb#x'], 'x']) {
      const res = await register(h, { redirect_uris: uris });
      assert.equal(res.status, 400, JSON.stringify(uris));
      assert.match(res.json.error, /^invalid_(redirect_uri|client_metadata)$/);
    }
    const loopback = await register(h, { redirect_uris: ['http://127.0.0.1:5555/cb'] });
    assert.equal(loopback.status, 201);
  });

  test('through the public URL /v1, / and /v1/events are 404 like a path that does not exist, token or not', async () => {
    const missing = await h.req('GET', '/no/such/path', undefined, PUB);
    assert.equal(missing.status, 404);
    const variants = [PUB, { ...PUB, authorization: `Bearer ${TEST_TOKEN}` }, { 'x-forwarded-for': '203.0.113.9' }];
    for (const headers of variants) {
      for (const path of [
        '/v1/tasks',
        '/',
        '/v1/events',
        '/v1/inbox?agent=a',
        '/v1/health',
        '/ui/app.js',
        '/v1/connectors',
      ]) {
        const res = await h.req('GET', path, undefined, headers);
        assert.equal(res.status, 404, `${path} ${JSON.stringify(headers)}`);
        assert.equal(res.json.error.code, 'not_found');
        assert.equal(res.json.error.message, `no route GET ${path.split('?')[0]}`);
      }
    }
    const post = await h.req(
      'POST',
      '/v1/tasks',
      { title: 'x', agent: 'a' },
      { ...PUB, authorization: `Bearer ${TEST_TOKEN}` },
    );
    assert.equal(post.status, 404);
    assert.equal((await h.req('GET', '/v1/tasks')).json.tasks.length, 0);
  });

  test('the consent form is refused without an Origin or from another origin', async () => {
    const a = await newAuthz(h);
    const body = form({ ...a.params, board: 'main', agent: 'x', code: await consentCode(h), decision: 'approve' });
    const none = await h.req('POST', '/oauth/authorize', body, FORM);
    assert.equal(none.status, 403);
    const foreign = await h.req('POST', '/oauth/authorize', body, { ...FORM, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.error.code, 'forbidden_origin');
  });

  test('consent needs a live one-time code, once, or the dashboard token', async () => {
    const a = await newAuthz(h);
    const wrong = await approve(h, a, 'zzzz-zzzz-zzzz');
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /wrong, already used or expired/);
    const code = await consentCode(h);
    assert.equal((await approve(h, a, code)).status, 303);
    assert.equal((await approve(h, a, code)).status, 400, 'a code approves once');
    const late = await consentCode(h);
    h.clock.advance(601_000);
    assert.equal((await approve(h, a, late)).status, 400, 'a code lives 10 minutes');
    assert.equal((await approve(h, a, TEST_TOKEN)).status, 303);
  });

  test("the consent page names the client and its redirect host, never the owner's pending board or agent", async () => {
    h.clock.advance(1); // the newest code is the one a dashboard-token approval takes its board from
    const code = (await h.req('POST', '/v1/connect', { board: 'team-board', agent: 'chat-worker' })).json.code;
    const a = await newAuthz(h);
    const page = await h.req('GET', `/oauth/authorize?${form(a.params)}`, undefined, PUB);
    assert.equal(page.status, 200);
    for (const s of ['Claude', 'claude.ai']) assert.ok(page.text.includes(s), s);
    for (const s of ['team-board', 'chat-worker']) assert.ok(!page.text.includes(s), `${s} shown without the code`);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    // Left blank, the board and agent are the code's.
    const ok = await approve(h, a, code, { board: '', agent: '' });
    assert.equal(ok.status, 303, ok.text);
    const res = await token(h, {
      grant_type: 'authorization_code',
      code: location(ok).searchParams.get('code') ?? '',
      code_verifier: a.verifier,
      client_id: a.client_id,
      redirect_uri: CALLBACK,
      resource: RESOURCE,
    });
    assert.equal(res.status, 200, res.text);
    const grant = (await h.req('GET', '/v1/connectors')).json.connectors.find(
      (c: { client_id: string }) => c.client_id === a.client_id,
    );
    assert.deepEqual([grant.board, grant.agent], ['team-board', 'chat-worker']);
  });

  test('a one-time code is spent after 5 wrong answers at the consent form', async () => {
    const a = await newAuthz(h);
    const code = await consentCode(h);
    for (let i = 0; i < 5; i++) assert.equal((await approve(h, a, `wrong-${i}`)).status, 400);
    const late = await approve(h, a, code);
    assert.equal(late.status, 400, 'the right code after 5 wrong answers');
    assert.match(late.text, /wrong, already used or expired/);
    const fresh = await consentCode(h);
    assert.equal((await approve(h, a, 'wrong-again')).status, 400);
    assert.equal((await approve(h, a, fresh)).status, 303, 'a new code starts with no wrong answers');
  });

  test('a new --public-url ends the tokens issued for the old one', async () => {
    const g = await granted(h);
    const site = parsePublicUrl('https://elsewhere.example.test');
    const moved = buildHttpApp({
      ctx: h.ctx,
      token: TEST_TOKEN,
      version: 'test',
      port: () => TEST_PORT,
      site,
    });
    const res = await moved.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        host: 'elsewhere.example.test',
        authorization: `Bearer ${g.access}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: JSON.stringify(MCP_INIT),
    });
    assert.equal(res.statusCode, 401);
    await moved.close();
  });
});

describe('OAuth rate limits', () => {
  let h: HttpHarness;
  before(async () => {
    h = await httpHarness(makeSqliteStore, {
      publicUrl: SITE,
      oauthLimits: { perAddress: new RateLimit(3), perClient: new RateLimit(2), consent: new RateLimit(2) },
    });
  });
  after(() => h.app.close());

  test('per address (the last X-Forwarded-For entry, the one the loopback proxy appended): 429 with Retry-After', async () => {
    // The caller writes every entry but the last: rotating them buys nothing.
    const from = (ip: string, forged: string) =>
      h.req('GET', '/.well-known/oauth-authorization-server', undefined, {
        ...PUB,
        'x-forwarded-for': `${forged}, ${ip}`,
      });
    for (let i = 0; i < 3; i++) assert.equal((await from('198.51.100.1', `10.9.0.${i}`)).status, 200);
    const limited = await from('198.51.100.1', '10.9.0.99');
    assert.equal(limited.status, 429);
    assert.equal(limited.json.error, 'temporarily_unavailable');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal((await from('198.51.100.2', '10.9.0.1')).status, 200, 'another address has its own count');
  });

  test('consent answers per address: a forged first X-Forwarded-For entry does not escape the limit', async () => {
    const reg = await h.req(
      'POST',
      '/oauth/register',
      { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' },
      { ...PUB, 'x-forwarded-for': '198.51.100.7' },
    );
    const { challenge } = pkce();
    const answer = (forged: string) =>
      h.req(
        'POST',
        '/oauth/authorize',
        form({
          response_type: 'code',
          client_id: reg.json.client_id,
          redirect_uri: CALLBACK,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: RESOURCE,
          code: 'zzzz-zzzz-zzzz',
          decision: 'approve',
        }),
        { ...FORM, origin: SITE, 'x-forwarded-for': `${forged}, 198.51.100.8` },
      );
    assert.equal((await answer('10.1.0.1')).status, 400);
    assert.equal((await answer('10.1.0.2')).status, 400);
    const limited = await answer('10.1.0.3');
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
  });

  test('per client at the token endpoint', async () => {
    const reg = await h.req(
      'POST',
      '/oauth/register',
      { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' },
      { ...PUB, 'x-forwarded-for': '198.51.100.3' },
    );
    const ask = (ip: string) =>
      h.req(
        'POST',
        '/oauth/token',
        form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: reg.json.client_id }),
        { ...FORM, 'x-forwarded-for': ip },
      );
    assert.equal((await ask('198.51.100.4')).status, 400);
    assert.equal((await ask('198.51.100.5')).status, 400);
    const limited = await ask('198.51.100.6');
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
  });
});
