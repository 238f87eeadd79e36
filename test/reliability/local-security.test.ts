/**
 * Nobody let in (issue 8, item 5), against real daemons over real sockets: the state directory is
 * the owner's alone, another local user gets nothing without the token, foreign Host and Origin
 * headers are refused on every surface, the daemon listens on loopback unless told otherwise, and
 * no token reaches a log. (In-process leak checks: security-in-process.test.ts.)
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { ROOT, runCli, runProcess, type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from '../support/wait-for.js';
import { rawRequest } from './fixtures/security-raw-http.js';
import { externalIPv4, freePort, listeningAddresses, tryConnect } from './fixtures/security-sockets.js';
import {
  assertAccepted,
  assertRefused,
  assertTaskCount,
  INITIALIZE,
  mode,
  octal,
  portOf,
  randomToken,
  send,
  serveExpectingRefusal,
  surfacesFor,
  walk,
} from './fixtures/security-surfaces.js';

describe('local security against one real daemon (trace logging)', () => {
  let d: SpawnedDaemon;
  let port: number;
  /** Every wrong token presented anywhere in this block: none may show up in the log. */
  const wrongTokens: string[] = [];
  let acceptedPosts = 0;

  before(async () => {
    port = await freePort();
    d = await spawnDaemon({
      args: ['--port', String(port), '--allow-host', `coord.test:${port}`],
      env: { COORD_LOG_LEVEL: 'trace' },
    });
    assert.equal(portOf(d.url), port);
  });
  after(() => d.kill9());

  test('the state directory is 0700 and the token, daemon.json, coord.db, its WAL and shm are 0600', async () => {
    assert.equal((await d.fetch('/v1/tasks', { method: 'POST', json: { title: 'modes', agent: 'a' } })).status, 201);
    acceptedPosts++;
    assert.equal(octal(mode(d.stateDir)), '0700');
    for (const name of ['token', 'daemon.json', 'coord.db', 'coord.db-wal', 'coord.db-shm'])
      assert.equal(octal(mode(join(d.stateDir, name))), '0600', name);
    const entries = walk(d.stateDir);
    for (const e of entries) assert.equal(e.mode & 0o077, 0, `${e.path} is ${octal(e.mode)}`);
    assert.ok(
      entries.some((e) => e.dir && e.path.endsWith('sessions')),
      'sessions/ exists and was checked',
    );
    console.log(`# state entries checked for group/other bits: ${entries.length + 1}`);
  });

  test('another local user (nobody) cannot read the token or the board, and gets 401 over a real socket', async (t) => {
    if (process.getuid?.() !== 0) {
      t.skip('not root: cannot start a process as another user');
      console.log('# another-user case skipped: tests are not running as root');
      return;
    }
    const runAsNobody = async (stateDir: string) => {
      const { code, stdout, stderr } = await runProcess(
        process.execPath,
        [join(ROOT, 'test/reliability/fixtures/security-other-user.mjs'), stateDir, d.url],
        { uid: 65534, gid: 65534, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin' } },
      );
      return { code, out: stdout, err: stderr };
    };
    const real = await runAsNobody(d.stateDir);
    assert.equal(real.code, 0, real.err);
    const seen = JSON.parse(real.out) as { uid: number; reads: Record<string, string>; http: Record<string, number> };
    assert.equal(seen.uid, 65534);
    for (const [what, got] of Object.entries(seen.reads)) assert.equal(got, 'EACCES', what);
    assert.deepEqual(seen.http, {
      'GET /v1/tasks without token': 401,
      'GET /v1/tasks with a guessed token': 401,
      'POST /v1/tasks without token': 401,
      'POST /mcp without token': 401,
      'GET /v1/health': 200,
    });
    wrongTokens.push('guess');
    const { tasks } = (await (await d.fetch('/v1/tasks')).json()) as { tasks: { title: string }[] };
    assert.equal(tasks.filter((x) => x.title === 'from nobody').length, 0);

    // The control: the same fixture on a directory left open does read it, so EACCES above is the modes' doing.
    const open = tempDir('coord-open-');
    writeFileSync(join(open, 'token'), 'readable\n', { mode: 0o644 });
    chmodSync(open, 0o755);
    chmodSync(join(open, 'token'), 0o644);
    const control = JSON.parse((await runAsNobody(open)).out) as { reads: Record<string, string> };
    assert.equal(control.reads.token, 'ok');
    assert.equal(control.reads['<state>/'], 'ok');
    console.log(
      `# as uid 65534: ${Object.keys(seen.reads).length} reads refused (EACCES), ${Object.keys(seen.http).length} requests answered`,
    );
  });

  test('a foreign or look-alike Host is refused with 403 forbidden_host on every surface; loopback names pass', async () => {
    const surfaces = surfacesFor(d.token);
    const badHosts = [
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      `localhost.evil:${port}`,
      `localhost.evil.example:${port}`,
      `127.0.0.1:${port}.evil.example`,
      `evil.example:${port}@127.0.0.1:${port}`,
      `127.0.0.1:${port + 1}`,
      `localhost:${port + 1}`,
      `[::1]:${port + 1}`,
      '127.0.0.1',
      'localhost',
      '[::1]',
      '',
      `::1:${port}`,
      `[0:0:0:0:0:0:0:1]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `0.0.0.0:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `LOCALHOST:${port}`,
      `localhost.:${port}`,
      `coord.test:${port + 1}`,
    ];
    const goodHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `coord.test:${port}`];
    let tried = 0;
    for (const s of surfaces) {
      for (const host of badHosts) {
        const a = await send(port, s, [['host', host]]);
        tried++;
        assertRefused(a, 403, 'forbidden_host', `${s.name} Host ${JSON.stringify(host)}`);
      }
      for (const host of goodHosts) {
        const a = await send(port, s, [['host', host]]);
        tried++;
        assertAccepted(a, `${s.name} Host ${host}`);
        if (s.writes) acceptedPosts++;
      }
    }
    // No Host at all: HTTP/1.1 requires one (Node answers 400 itself); HTTP/1.0 reaches the guard.
    for (const s of surfaces) {
      const v11 = await send(port, s, []);
      assert.equal(v11.status, 400, `${s.name} without Host (HTTP/1.1)`);
      const v10 = await send(port, s, [], 'HTTP/1.0');
      assertRefused(v10, 403, 'forbidden_host', `${s.name} without Host (HTTP/1.0)`);
      // Two Host lines, the foreign one first: whichever rule applies, the request is not served.
      const two = await send(port, s, [
        ['host', `evil.example:${port}`],
        ['host', `127.0.0.1:${port}`],
      ]);
      assert.ok(two.status >= 400, `${s.name} with two Host lines got ${two.status}`);
      tried += 3;
    }
    await assertTaskCount(d, acceptedPosts);
    console.log(
      `# Host cases: ${badHosts.length} refused + ${goodHosts.length} accepted + 3 malformed, on ${surfaces.length} surfaces = ${tried} requests`,
    );
  });

  test('a foreign Origin is refused with 403 forbidden_origin on every surface and a refused POST writes nothing', async () => {
    const surfaces = surfacesFor(d.token);
    const badOrigins = [
      'https://evil.example',
      'null',
      `http://127.0.0.1:${port + 1}`,
      `http://localhost.evil:${port}`,
      `http://127.0.0.1.evil.example:${port}`,
      `http://evil.example:${port}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1`,
      `http://127.0.0.1:${port}/`,
      `http://127.0.0.1:${port}.evil.example`,
      `file://`,
      `http://coord.test:${port + 1}`,
      '',
    ];
    const goodOrigins = [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      `http://coord.test:${port}`,
    ];
    let tried = 0;
    for (const s of surfaces) {
      for (const origin of badOrigins) {
        const a = await send(port, s, [
          ['host', `127.0.0.1:${port}`],
          ['origin', origin],
        ]);
        tried++;
        assertRefused(a, 403, 'forbidden_origin', `${s.name} Origin ${JSON.stringify(origin)}`);
      }
      // A foreign Origin line next to our own is still a foreign page asking.
      const both = await send(port, s, [
        ['host', `127.0.0.1:${port}`],
        ['origin', 'https://evil.example'],
        ['origin', `http://127.0.0.1:${port}`],
      ]);
      tried++;
      assertRefused(both, 403, 'forbidden_origin', `${s.name} two Origin lines`);
      for (const origin of goodOrigins) {
        const a = await send(port, s, [
          ['host', `127.0.0.1:${port}`],
          ['origin', origin],
        ]);
        tried++;
        assertAccepted(a, `${s.name} Origin ${origin}`);
        if (s.writes) acceptedPosts++;
      }
    }
    await assertTaskCount(d, acceptedPosts);
    console.log(
      `# Origin cases: ${badOrigins.length + 1} refused + ${goodOrigins.length} accepted, on ${surfaces.length} surfaces = ${tried} requests`,
    );
  });

  test('a CORS preflight from a foreign Origin is refused and gets no Access-Control-Allow-Origin', async () => {
    const paths = ['/v1/tasks', '/v1/tasks/x/claim', '/v1/events', '/mcp', '/', '/v1/health', '/v1/openapi.json'];
    for (const path of paths) {
      for (const origin of ['https://evil.example', 'null']) {
        const a = await rawRequest({
          port,
          method: 'OPTIONS',
          path,
          headers: [
            ['host', `127.0.0.1:${port}`],
            ['origin', origin],
            ['access-control-request-method', 'POST'],
            ['access-control-request-headers', 'authorization, content-type'],
          ],
        });
        assertRefused(a, 403, 'forbidden_origin', `OPTIONS ${path} from ${origin}`);
      }
    }
    console.log(`# CORS preflights refused: ${paths.length * 2}`);
  });

  test('without the right token /v1 and /mcp answer 401 — also behind percent-encoded paths — and write nothing', async () => {
    const wrong = [randomToken(), randomToken(), d.token.slice(0, -1), `${d.token}x`, d.token.toUpperCase()];
    wrongTokens.push(...wrong);
    const auths = [undefined, 'Bearer', 'Bearer ', `Basic ${d.token}`, d.token, ...wrong.map((w) => `Bearer ${w}`)];
    const targets: [string, string, string | undefined][] = [
      ['GET', '/v1/tasks', undefined],
      ['POST', '/v1/tasks', JSON.stringify({ title: 'unauthorized write', agent: 'x' })],
      ['GET', '/v1/events', undefined],
      ['POST', '/mcp', INITIALIZE],
      ['GET', '/v1/openapi.json', undefined],
      ['GET', '/%761/tasks', undefined],
      ['POST', '/v%31/tasks', JSON.stringify({ title: 'unauthorized write', agent: 'x' })],
      ['POST', '/mc%70', INITIALIZE],
      ['GET', '/v1/no-such-route', undefined],
    ];
    let tried = 0;
    for (const [method, path, body] of targets) {
      for (const auth of auths) {
        const headers: [string, string][] = [
          ['host', `127.0.0.1:${port}`],
          ['content-type', 'application/json'],
          ['accept', 'application/json, text/event-stream'],
        ];
        if (auth !== undefined) headers.push(['authorization', auth]);
        const a = await rawRequest({ port, method, path, headers, ...(body ? { body } : {}) });
        tried++;
        assertRefused(a, 401, 'unauthorized', `${method} ${path} with ${JSON.stringify(auth?.slice(0, 20))}`);
      }
    }
    await assertTaskCount(d, acceptedPosts);
    console.log(`# unauthorized requests refused: ${tried} (${auths.length} credentials × ${targets.length} targets)`);
  });

  test('the default daemon listens on 127.0.0.1 only: the kernel shows no other socket, and the LAN address refuses', async () => {
    const addrs = listeningAddresses(port);
    if (addrs === null) console.log('# /proc/net/tcp absent: bound-address check skipped');
    else assert.deepEqual(addrs, ['127.0.0.1']);
    const lan = externalIPv4();
    if (lan === null) {
      console.log('# no non-loopback IPv4 address on this machine: LAN connect check skipped');
      return;
    }
    assert.equal(await tryConnect(lan, port), 'ECONNREFUSED');
    console.log(`# listening sockets on port ${port}: ${JSON.stringify(addrs)}; connect to ${lan}:${port} refused`);
  });

  test('the CLI on a 401 names the error and prints neither the token it sent nor the real one', async () => {
    const real = readFileSync(join(d.stateDir, 'token'), 'utf8');
    const wrong = randomToken();
    wrongTokens.push(wrong);
    writeFileSync(join(d.stateDir, 'token'), `${wrong}\n`);
    try {
      for (const args of [['ls'], ['ls', '--json'], ['post', 'x', '--agent', 'cli']]) {
        const r = await runCli([...args, '--state', d.stateDir]);
        const all = r.stdout + r.stderr;
        assert.equal(r.code, 1, all);
        assert.match(all, /unauthorized/);
        assert.ok(!all.includes(wrong), `the CLI printed the token it sent: ${all}`);
        assert.ok(!all.includes(d.token), 'the CLI printed the real token');
      }
    } finally {
      writeFileSync(join(d.stateDir, 'token'), real);
    }
  });

  test('at trace level the log never holds the token or a wrong one, through MCP, SSE, errors and shutdown', async () => {
    // MCP over HTTP with the right token: initialize, a tool call, then close the session.
    const init = await d.fetch('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: INITIALIZE,
    });
    assert.equal(init.status, 200);
    const session = init.headers.get('mcp-session-id');
    assert.ok(session);
    await init.text();
    const mcpHeaders = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    };
    await (
      await d.fetch('/mcp', {
        method: 'POST',
        headers: mcpHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const call = await d.fetch('/mcp', {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'show_task', arguments: { task_id: 'nope' } },
      }),
    });
    assert.match(await call.text(), /not_found/);
    await (await d.fetch('/mcp', { method: 'DELETE', headers: mcpHeaders })).text();
    // SSE: open, see the stream start, go away.
    const ac = new AbortController();
    const sse = await d.fetch('/v1/events', { signal: ac.signal, headers: { accept: 'text/event-stream' } });
    assert.equal(sse.status, 200);
    ac.abort();
    // Errors of every kind.
    assert.equal((await d.fetch('/v1/tasks/nope')).status, 404);
    assert.equal((await d.fetch('/v1/tasks', { method: 'POST', body: '{not json' })).status, 400);
    assert.equal((await d.fetch('/v1/tasks', { method: 'POST', json: { agent: 'a' } })).status, 400);
    const big = await d.fetch('/v1/tasks', { method: 'POST', body: `"${'x'.repeat(1_100_000)}"` }).catch(() => null);
    if (big) assert.equal(big.status, 413);
    assert.equal(await d.stop(), 0);
    const log = d.stderr();
    assert.match(log, /coord daemon listening/, 'trace logging was on');
    assert.match(log, /shutting down/);
    // The refusals were logged (so the search below looked at lines that were near the secrets).
    assert.match(log, /refused: Host not allowed/);
    assert.match(log, /refused: Origin not allowed/);
    assert.match(log, /refused: missing or wrong token/);
    assert.ok(!log.includes(d.token), 'the daemon token appears in the log');
    for (const w of wrongTokens) assert.ok(!log.includes(w), `a presented wrong token appears in the log: ${w}`);
    console.log(
      `# log lines at trace: ${log.split('\n').filter(Boolean).length}; secrets searched for: ${wrongTokens.length + 1}, found: 0`,
    );
  });
});

describe('a state directory left loose', () => {
  test('a state dir, sessions/, token and coord.db open to others are made private at start, with a warning', async () => {
    const state = tempDir('coord-loose-');
    const token = `kept-${crypto.randomUUID()}`;
    mkdirSync(join(state, 'sessions'));
    writeFileSync(join(state, 'token'), `${token}\n`);
    writeFileSync(join(state, 'coord.db'), '');
    writeFileSync(join(state, 'notes.txt'), 'mine\n');
    chmodSync(state, 0o755);
    chmodSync(join(state, 'sessions'), 0o777);
    chmodSync(join(state, 'token'), 0o644);
    chmodSync(join(state, 'coord.db'), 0o666);
    chmodSync(join(state, 'notes.txt'), 0o644);
    const d = await spawnDaemon({ stateDir: state });
    try {
      assert.equal(octal(mode(state)), '0700');
      assert.equal(octal(mode(join(state, 'sessions'))), '0700');
      assert.equal(octal(mode(join(state, 'token'))), '0600');
      assert.equal(octal(mode(join(state, 'coord.db'))), '0600');
      // Not coord's file: left as it is (nobody else can reach it through a 0700 directory anyway).
      assert.equal(octal(mode(join(state, 'notes.txt'))), '0644');
      assert.equal(d.token, token, 'the existing token is kept');
      // stderr and stdout are two pipes: the warnings may land after the line that says it listens.
      const warned = () =>
        d
          .stderr()
          .split('\n')
          .filter((l) => l.includes('made it private'));
      await waitFor(() => warned().length >= 4, 'four warnings');
      const warnings = warned();
      assert.equal(warnings.length, 4, d.stderr());
      for (const was of ['0755', '0777', '0644', '0666'])
        assert.ok(
          warnings.some((w) => w.includes(was)),
          was,
        );
      assert.equal((await d.fetch('/v1/tasks')).status, 200);
      console.log(`# loose entries tightened: ${warnings.length}`);
    } finally {
      await d.stop();
    }
  });

  test('an empty token file is replaced by a new token: an empty bearer never opens the board', async () => {
    const state = tempDir('coord-empty-token-');
    writeFileSync(join(state, 'token'), '\n', { mode: 0o600 });
    const d = await spawnDaemon({ stateDir: state });
    try {
      assert.ok(d.token.length >= 43, `new token: ${d.token.length} chars`);
      await waitFor(() => d.stderr().includes('no usable token'), 'the replaced-token warning');
      for (const auth of ['Bearer', 'Bearer ', 'Bearer \t']) {
        const a = await rawRequest({
          port: portOf(d.url),
          method: 'GET',
          path: '/v1/tasks',
          headers: [
            ['host', new URL(d.url).host],
            ['authorization', auth],
          ],
        });
        assertRefused(a, 401, 'unauthorized', JSON.stringify(auth));
      }
      assert.equal((await d.fetch('/v1/tasks')).status, 200);
    } finally {
      await d.stop();
    }
  });

  test('a shared sticky directory such as /tmp is refused, not tightened', async () => {
    const shared = tempDir('coord-sticky-');
    chmodSync(shared, 0o1777);
    const r = await serveExpectingRefusal(['--state', shared]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /shared directory/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(octal(mode(shared)), '01777');
  });
});

describe('coord serve --host', () => {
  test('--host 0.0.0.0 warns on stderr, keeps daemon.json on loopback, and still refuses foreign Hosts', async () => {
    const d = await spawnDaemon({ args: ['--host', '0.0.0.0'] });
    try {
      const p = portOf(d.url);
      const warning = `listening on 0.0.0.0:${p} — reachable from other machines; anyone with the token can use the board`;
      await waitFor(() => d.stderr().includes(warning), 'the exposure warning');
      assert.equal(d.url, `http://127.0.0.1:${p}`);
      assert.equal(JSON.parse(readFileSync(join(d.stateDir, 'daemon.json'), 'utf8')).url, d.url);
      assert.equal((await d.fetch('/v1/tasks')).status, 200);
      const lan = externalIPv4();
      if (lan === null) {
        console.log('# no non-loopback IPv4: wildcard reachability check skipped');
        return;
      }
      const auth: [string, string] = ['authorization', `Bearer ${d.token}`];
      const viaLan = (host: string) =>
        rawRequest({ address: lan, port: p, method: 'GET', path: '/v1/tasks', headers: [['host', host], auth] });
      assertRefused(await viaLan(`${lan}:${p}`), 403, 'forbidden_host', 'LAN Host on a wildcard bind');
      assertRefused(await viaLan(`evil.example:${p}`), 403, 'forbidden_host', 'foreign Host on a wildcard bind');
      assert.equal((await viaLan(`127.0.0.1:${p}`)).status, 200);
      console.log(`# wildcard bind reached at ${lan}:${p}; its Host refused unless allowed`);
    } finally {
      await d.stop();
    }
  });

  test('--host <address> listens there only, accepts <address>:<port> as Host and Origin, and writes that URL', async () => {
    const lan = externalIPv4();
    const addr = lan ?? '127.0.0.2';
    const d = await spawnDaemon({ args: ['--host', addr] });
    try {
      const p = portOf(d.url);
      assert.equal(d.url, `http://${addr}:${p}`);
      assert.equal(JSON.parse(readFileSync(join(d.stateDir, 'daemon.json'), 'utf8')).url, d.url);
      if (lan) await waitFor(() => d.stderr().includes('reachable from other machines'), 'the exposure warning');
      const listening = listeningAddresses(p);
      if (listening) assert.deepEqual(listening, [addr]);
      assert.equal(await tryConnect('127.0.0.1', p), 'ECONNREFUSED');
      const a = await rawRequest({
        address: addr,
        port: p,
        method: 'GET',
        path: '/v1/tasks',
        headers: [
          ['host', `${addr}:${p}`],
          ['origin', `http://${addr}:${p}`],
          ['authorization', `Bearer ${d.token}`],
        ],
      });
      assert.equal(a.status, 200, a.body);
      const evil = await rawRequest({
        address: addr,
        port: p,
        method: 'GET',
        path: '/v1/tasks',
        headers: [
          ['host', `evil.example:${p}`],
          ['authorization', `Bearer ${d.token}`],
        ],
      });
      assertRefused(evil, 403, 'forbidden_host', 'foreign Host on a specific bind');
      // The CLI finds it through daemon.json.
      const cli = await runCli(['ls', '--state', d.stateDir]);
      assert.equal(cli.code, 0, cli.stderr);
      console.log(`# specific bind on ${addr}:${p}; loopback refused, its own Host accepted`);
    } finally {
      await d.stop();
    }
  });

  test('--host with a name or garbage is a usage error naming the flag, without a stack trace', async () => {
    for (const bad of ['evil.example', 'not an address', '999.1.1.1']) {
      const r = await serveExpectingRefusal(['--state', tempDir('coord-badhost-'), '--host', bad]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /--host must be an IP address/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
  });
});

describe('remote connectors: the OAuth surface of a real daemon with --public-url (trace logging)', () => {
  const PUBLIC_HOST = 'coord.example.test';
  let d: SpawnedDaemon;
  let port: number;
  const raw = (method: string, path: string, headers: [string, string][], body?: string) =>
    rawRequest({ method, path, headers, port, ...(body === undefined ? {} : { body }) });
  const tunnel = (extra: [string, string][] = []): [string, string][] => [
    ['host', PUBLIC_HOST],
    ['x-forwarded-proto', 'https'],
    ...extra,
  ];
  const json: [string, string] = ['content-type', 'application/json'];
  const formType: [string, string] = ['content-type', 'application/x-www-form-urlencoded'];
  const registration = JSON.stringify({
    redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
    client_name: 'Claude',
    token_endpoint_auth_method: 'client_secret_post',
  });
  const oauthSurfaces: [string, string, [string, string][], string | undefined][] = [
    ['GET', '/.well-known/oauth-protected-resource/mcp', [], undefined],
    ['GET', '/.well-known/oauth-authorization-server', [], undefined],
    ['POST', '/oauth/register', [json], registration],
    ['GET', '/oauth/authorize?client_id=x', [], undefined],
    ['POST', '/oauth/authorize', [formType], 'client_id=x'],
    ['POST', '/oauth/token', [formType], 'grant_type=refresh_token&refresh_token=x&client_id=x'],
    ['POST', '/mcp', [json], INITIALIZE],
  ];

  before(async () => {
    port = await freePort();
    d = await spawnDaemon({
      args: ['--port', String(port), '--public-url', `https://${PUBLIC_HOST}`],
      env: { COORD_LOG_LEVEL: 'trace' },
    });
  });
  after(() => d.kill9());

  test('DNS rebinding: a foreign or look-alike Host is 403 forbidden_host on every OAuth endpoint and /mcp', async () => {
    const bad = [
      'evil.example',
      `${PUBLIC_HOST}.evil.example`,
      `evil.${PUBLIC_HOST}`,
      `${PUBLIC_HOST}:8443`,
      `${PUBLIC_HOST}.`,
      `127.0.0.1:${port + 1}`,
      '',
    ];
    let tried = 0;
    for (const [method, path, headers, body] of oauthSurfaces) {
      for (const host of bad) {
        const a = await raw(method, path, [['host', host], ['x-forwarded-proto', 'https'], ...headers], body);
        tried++;
        assert.equal(a.status, 403, `${method} ${path} Host ${JSON.stringify(host)}: ${a.body}`);
        assert.equal(JSON.parse(a.body).error.code, 'forbidden_host');
      }
    }
    console.log(`# OAuth Host cases: ${bad.length} refused on ${oauthSurfaces.length} surfaces = ${tried} requests`);
  });

  test('a foreign Origin is 403 forbidden_origin on every OAuth endpoint, through the tunnel or on loopback, and registers nothing', async () => {
    const origins = ['https://evil.example', `http://${PUBLIC_HOST}`, `https://${PUBLIC_HOST}.evil.example`, 'null'];
    for (const [method, path, headers, body] of oauthSurfaces) {
      for (const origin of origins) {
        for (const via of [tunnel(), [['host', `127.0.0.1:${port}`]] as [string, string][]]) {
          const a = await raw(method, path, [...via, ['origin', origin], ...headers], body);
          assert.equal(a.status, 403, `${method} ${path} Origin ${origin}: ${a.body}`);
          assert.equal(JSON.parse(a.body).error.code, 'forbidden_origin');
        }
      }
    }
  });

  test('through the tunnel, or on loopback with any X-Forwarded header, /v1, / and /v1/events are 404 even with the token', async () => {
    const auth: [string, string] = ['authorization', `Bearer ${d.token}`];
    const vias: [string, string][][] = [
      tunnel([auth]),
      [['host', `127.0.0.1:${port}`], ['x-forwarded-for', '203.0.113.9'], auth],
      [['host', `localhost:${port}`], ['x-forwarded-host', PUBLIC_HOST], auth],
      [['host', `127.0.0.1:${port}`], ['forwarded', 'for=203.0.113.9;proto=https'], auth],
    ];
    for (const via of vias) {
      for (const path of ['/v1/tasks', '/', '/v1/events', '/v1/inbox?agent=a', '/v1/connectors', '/ui/app.js']) {
        const a = await raw('GET', path, [...via, ['accept', 'text/event-stream']]);
        assert.equal(a.status, 404, `${path} via ${JSON.stringify(via[1])}: ${a.body}`);
      }
      const post = await raw('POST', '/v1/connect', [...via, json], '{}');
      assert.equal(post.status, 404, 'no one-time code is minted through the tunnel');
    }
    const mcp = await raw(
      'POST',
      '/mcp',
      [...tunnel([auth]), json, ['accept', 'application/json, text/event-stream']],
      INITIALIZE,
    );
    assert.equal(mcp.status, 401, "the daemon's token is no OAuth token");
    assert.match(
      mcp.headers['www-authenticate'] ?? '',
      /resource_metadata="https:\/\/coord\.example\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
  });

  test('at trace level the log never holds a client secret, consent code, authorization code or token', async () => {
    const reg = await raw('POST', '/oauth/register', [...tunnel(), json], registration);
    assert.equal(reg.status, 201);
    const client = JSON.parse(reg.body) as { client_id: string; client_secret: string };
    const connect = await d.fetch('/v1/connect', { method: 'POST', json: { board: 'main' } });
    const consent = ((await connect.json()) as { code: string }).code;
    const verifier = 'v'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `https://${PUBLIC_HOST}/mcp`,
      board: 'main',
      agent: 'claude#k3x9',
      code: consent,
    });
    const approved = await raw(
      'POST',
      '/oauth/authorize',
      [...tunnel([['origin', `https://${PUBLIC_HOST}`]]), formType],
      params.toString(),
    );
    assert.equal(approved.status, 303, approved.body);
    const code = new URL(approved.headers.location ?? '').searchParams.get('code') ?? '';
    const tokenBody = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    const tok = await raw('POST', '/oauth/token', [...tunnel(), formType], tokenBody.toString());
    assert.equal(tok.status, 200, tok.body);
    const { access_token, refresh_token } = JSON.parse(tok.body) as { access_token: string; refresh_token: string };
    const mcp = await raw(
      'POST',
      '/mcp',
      [
        ...tunnel([['authorization', `Bearer ${access_token}`]]),
        json,
        ['accept', 'application/json, text/event-stream'],
      ],
      INITIALIZE,
    );
    assert.equal(mcp.status, 200);
    const db = readFileSync(join(d.stateDir, 'coord.db')).toString('latin1');
    assert.equal(await d.stop(), 0);
    const log = d.stderr();
    assert.match(log, /connector granted/);
    const secrets = { client_secret: client.client_secret, consent, code, access_token, refresh_token };
    for (const [name, s] of Object.entries(secrets)) {
      assert.ok(s.length > 8, name);
      assert.ok(!log.includes(s), `the ${name} appears in the log`);
      assert.ok(!db.includes(s), `the ${name} is stored in clear in coord.db`);
    }
  });
});
