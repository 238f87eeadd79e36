/**
 * A chat host connecting to coord as a remote connector (SPEC §16), end to end: a real daemon with
 * --public-url, the official MCP SDK client's OAuth support (discovery, dynamic registration, PKCE, the
 * token exchange), the owner's consent in real Chromium with the one-time code from `coord connect`, and
 * then the granted agent's MCP calls. The public host is simulated as a tunnel does it: the public Host and
 * X-Forwarded-* headers on a loopback connection (tunnelFetch), for the SDK client and the browser alike.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { type Browser, chromium } from 'playwright-core';
import { COORD, childEnv, ROOT, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';

declare const document: any;

const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

const PUBLIC = 'https://coord.example.test/coord';
const PUBLIC_HOST = 'coord.example.test';

/** One line per request through the "tunnel", secrets cut: the closing note's transcript. */
const transcript: string[] = [];
const redact = (s: string) =>
  s
    .replace(/coord_(cat|crt|cac|ccs)_[A-Za-z0-9_-]+/g, 'coord_$1_…')
    .replace(/(code_verifier|code_challenge|code|state)=[^&\s"]+/g, '$1=…');

/** The tunnel: https://coord.example.test/… → the daemon on loopback, with the headers a tunnel adds. */
function tunnel(daemonUrl: string) {
  const target = new URL(daemonUrl);
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const u = new URL(req.url);
    assert.equal(u.host, PUBLIC_HOST, `the client left the public URL: ${req.url}`);
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    Object.assign(headers, {
      host: PUBLIC_HOST,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': PUBLIC_HOST,
      'x-forwarded-for': '203.0.113.7',
    });
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    return new Promise<Response>((resolve, reject) => {
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: u.pathname + u.search, headers },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, String(v));
          const status = res.statusCode ?? 500;
          transcript.push(
            redact(
              `${req.method} ${u.pathname}${u.search} → ${status}${h.get('location') ? ` Location: ${h.get('location')}` : ''}`,
            ),
          );
          const stream =
            status === 204 || status === 304 || req.method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream);
          resolve(new Response(stream, { status, headers: h }));
        },
      );
      out.on('error', reject);
      if (body) out.write(body);
      out.end();
    });
  };
}

/** What a chat host keeps: its registration, the PKCE verifier, its tokens. In memory. */
class HostProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Claude',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: OAuthTokens) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery: OAuthDiscoveryState | undefined;
  saveDiscoveryState(s: OAuthDiscoveryState) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}

function coord(...args: string[]): any {
  const [cmd, ...base] = COORD as [string, ...string[]];
  const r = spawnSync(cmd, [...base, ...args], { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const text = (r: any): string => (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('a chat host as a remote connector: OAuth with the MCP SDK client, consent in Chromium', () => {
  let d: SpawnedDaemon;
  let browser: Browser;
  let callback: Server;
  let redirectUrl: string;
  const codes: URLSearchParams[] = [];
  let provider: HostProvider;
  let client: Client;
  let taskId: string;
  let fetchTunnel: ReturnType<typeof tunnel>;

  before(async () => {
    d = await spawnDaemon({ args: ['--public-url', PUBLIC] });
    fetchTunnel = tunnel(d.url);
    callback = createServer((req, res) => {
      codes.push(new URL(req.url ?? '/', 'http://x').searchParams);
      res.end('You can close this window.');
    });
    await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
    redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    browser = await chromium.launch(CHROMIUM);
  });
  after(async () => {
    await client?.close().catch(() => {});
    await browser?.close();
    callback?.close();
    await d?.stop();
    if (transcript.length) console.log(transcript.map((l) => `# ${l}`).join('\n'));
  });

  const transport = () =>
    new StreamableHTTPClientTransport(new URL(`${PUBLIC}/mcp`), {
      authProvider: provider,
      fetch: fetchTunnel,
      // A connector is the agent of its grant: this header must change nothing.
      requestInit: { headers: { 'Coord-Agent': 'mallory', 'Coord-Board': 'other' } },
    });

  test('the SDK client discovers, registers and is sent to consent; Chromium approves with the one-time code', async () => {
    provider = new HostProvider(redirectUrl);
    client = new Client({ name: 'claude-ai', version: '1.0.0' });
    await assert.rejects(client.connect(transport()), /Unauthorized|authoriz/i);
    const url = provider.authorizationUrl;
    assert.ok(url, 'the SDK sent the user to the authorization endpoint');
    assert.equal(url.origin + url.pathname, `${PUBLIC}/oauth/authorize`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('resource'), `${PUBLIC}/mcp`);

    const connect = coord('connect', '--state', d.stateDir, '--board', 'main', '--agent', 'chat-worker', '--json');
    assert.equal(connect.url, `${PUBLIC}/mcp`);
    assert.match(connect.code, /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/);

    const page = await browser.newPage();
    // Chromium reaches the public URL through the same tunnel; the redirect to the loopback callback is real.
    await page.route(`https://${PUBLIC_HOST}/**`, async (route) => {
      const r = route.request();
      const res = await fetchTunnel(r.url(), {
        method: r.method(),
        headers: await r.allHeaders(),
        ...(r.postDataBuffer() ? { body: r.postDataBuffer() } : {}),
      } as RequestInit);
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        headers[k] = v;
      });
      await route.fulfill({ status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) });
    });
    await page.goto(url.toString());
    assert.equal(await page.textContent('#client-name'), 'Claude');
    assert.equal(await page.textContent('#redirect-host'), new URL(redirectUrl).host);
    // The owner's pending board and agent are shown to nobody without the code: left blank, they are the code's.
    assert.match((await page.textContent('#board-name')) ?? '', /coord connect/);
    assert.doesNotMatch((await page.textContent('body')) ?? '', /chat-worker/);
    assert.equal(await page.inputValue('input[name=agent]'), '');
    await page.fill('input[name=code]', connect.code);
    await Promise.all([page.waitForURL(`${redirectUrl}**`), page.click('button[value=approve]')]);
    const back = codes.at(-1);
    assert.ok(back?.get('code'), 'the callback got a code');
    if (!back) return;
    assert.equal(back.get('iss'), PUBLIC);
    await page.close();

    await (await transport()).finishAuth(back.get('code') as string, back.get('iss') as string);
    assert.ok(provider.saved?.access_token && provider.saved.refresh_token);
  });

  test('the granted connector initializes, lists the tools, claims and submits as its agent', async () => {
    client = new Client({ name: 'claude-ai', version: '1.0.0' });
    await client.connect(transport());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const t of ['claim_task', 'submit_result', 'inbox', 'post_task']) assert.ok(tools.includes(t), t);

    const posted = await d.fetch('/v1/tasks', {
      method: 'POST',
      json: { agent: 'alice', board: 'main', title: 'summarise the README' },
    });
    taskId = ((await posted.json()) as any).task.id;
    const claim = await client.callTool({ name: 'claim_task', arguments: { task_id: taskId } });
    assert.notEqual(claim.isError, true, text(claim));
    const shown: any = await (await d.fetch(`/v1/tasks/${taskId}`)).json();
    assert.equal(shown.task.state, 'claimed');
    assert.equal(shown.task.claimed_by, 'chat-worker', 'the Coord-Agent header changed nothing');
    const submit = await client.callTool({
      name: 'submit_result',
      arguments: { task_id: taskId, status: 'completed', result: 'coord coordinates agents.' },
    });
    assert.notEqual(submit.isError, true, text(submit));
    const done: any = await (await d.fetch(`/v1/tasks/${taskId}`)).json();
    assert.equal(done.task.state, 'completed');

    const listed = coord('connectors', '--state', d.stateDir, '--json').connectors;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].client, 'Claude');
    assert.equal(listed[0].agent, 'chat-worker');
    assert.equal(listed[0].board, 'main');
    assert.ok(listed[0].last_used_at);
    const dashboard = await browser.newPage();
    await dashboard.goto(`${d.url}/#token=${d.token}`);
    await dashboard.waitForSelector('#connectors li.connector');
    assert.match((await dashboard.textContent('#connectors')) ?? '', /chat-worker Claude on main · used/);
    await dashboard.close();
    const events: any = await (await d.fetch('/v1/events?format=json&board=main')).json();
    assert.ok(events.events.some((e: { type: string }) => e.type === 'connector.granted'));
  });

  test("a connector's claims end with its session, as any agent's (SPEC §5)", async () => {
    const posted = await d.fetch('/v1/tasks', {
      method: 'POST',
      json: { agent: 'alice', board: 'main', title: 'left behind' },
    });
    const id = ((await posted.json()) as any).task.id;
    const t = transport();
    const c = new Client({ name: 'claude-ai', version: '1.0.0' });
    await c.connect(t);
    const claim = await c.callTool({ name: 'claim_task', arguments: { task_id: id } });
    assert.notEqual(claim.isError, true, text(claim));
    // The host ends its MCP session (DELETE /mcp): what it held is freed now, not at the lease's end.
    await t.terminateSession();
    const shown: any = await (await d.fetch(`/v1/tasks/${id}`)).json();
    assert.equal(shown.task.state, 'queued');
    await c.close();
  });

  test('the daemon restarts: the grant survives and the client goes on', async () => {
    const state = d.stateDir;
    await client.close();
    await d.stop();
    d = await spawnDaemon({ stateDir: state, args: ['--public-url', PUBLIC] });
    fetchTunnel = tunnel(d.url);
    client = new Client({ name: 'claude-ai', version: '1.0.0' });
    await client.connect(transport());
    const inbox = await client.callTool({ name: 'inbox', arguments: {} });
    assert.notEqual(inbox.isError, true, text(inbox));
  });

  test('revoking the connector takes effect on its next call', async () => {
    const [grant] = coord('connectors', '--state', d.stateDir, '--json').connectors;
    coord('connectors', 'revoke', grant.id, '--state', d.stateDir, '--json');
    await assert.rejects(client.callTool({ name: 'inbox', arguments: {} }));
    const events: any = await (await d.fetch('/v1/events?format=json&board=main')).json();
    assert.ok(events.events.some((e: { type: string }) => e.type === 'connector.revoked'));
  });
});
