/** MCP over Streamable HTTP at /mcp on a real daemon process: the same tools, the same guard. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { waitFor } from './harness.js';
import { SPEC_TOOLS } from './spec-tools.js';

let daemon: SpawnedDaemon;
before(async () => {
  // A short grace, so a client that vanished without DELETE is seen gone within the test.
  daemon = await spawnDaemon({ env: { COORD_MCP_GRACE_MS: '300' } });
});
after(async () => {
  await daemon.stop();
});

async function connect(name: string, headers: Record<string, string> = {}, query = '') {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp${query}`), {
    requestInit: { headers: { authorization: `Bearer ${daemon.token}`, ...headers } },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const res = (await client.callTool({ name: tool, arguments: args })) as any;
    return {
      text: String(res.content?.[0]?.text ?? ''),
      isError: res.isError === true,
      data: res._meta?.['coord/data'],
    };
  };
  return { client, transport, call };
}

describe('MCP over Streamable HTTP', () => {
  test('two sessions race for one task: one wins, the other reads text starting with claimed', async () => {
    const a = await connect('cursor', { 'coord-agent': 'cursor', 'coord-board': 'race' });
    const b = await connect('codex', {}, '?agent=codex&board=race');
    assert.equal((await a.client.listTools()).tools.length, SPEC_TOOLS.length);
    const id = (await a.call('post_task', { title: 'only one of you' })).data.task.id;
    const [ra, rb] = await Promise.all([a.call('claim_task', { task_id: id }), b.call('claim_task', { task_id: id })]);
    const winner = ra.isError ? rb : ra;
    const loser = ra.isError ? ra : rb;
    assert.equal(winner.isError, false);
    assert.match(loser.text, new RegExp(`^claimed: #${id} is held by ${winner.data.task.claimed_by} until `));
    assert.equal(winner.data.task.board, 'race');
    await a.transport.terminateSession();
    await b.transport.terminateSession();
    await a.client.close();
    await b.client.close();
  });

  test('/mcp without the token is 401, with a foreign Origin or Host 403', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${daemon.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    const noToken = await post({});
    assert.equal(noToken.status, 401);
    assert.equal(((await noToken.json()) as any).error.code, 'unauthorized');
    const auth = { authorization: `Bearer ${daemon.token}` };
    const origin = await post({ ...auth, origin: 'https://evil.example' });
    assert.equal(origin.status, 403);
    assert.equal(((await origin.json()) as any).error.code, 'forbidden_origin');
    const ok = await post(auth);
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const port = new URL(daemon.url).port;
    const rebinding = await new Promise<number | undefined>((resolve, reject) => {
      // fetch will not send a Host of our choosing; a DNS-rebinding page's request would.
      const req = request(`${daemon.url}/mcp`, { headers: { ...auth, host: `evil.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(rebinding, 403);
  });

  test('a client that probes for the 2026-07-28 revision falls back to the initialize handshake', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${daemon.token}` } },
    });
    const client = new Client({ name: 'prober', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    assert.match(transport.protocolVersion ?? '', /^2025-/);
    assert.equal((await client.listTools()).tools.length, SPEC_TOOLS.length);
    await transport.terminateSession();
    await client.close();
  });

  test('an unknown Mcp-Session-Id answers 404, so the client knows to initialize again', async () => {
    const res = await fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${daemon.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': '00000000-0000-4000-8000-000000000000',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
  });

  test('a bad Coord-Agent header is refused before a session opens', async () => {
    await assert.rejects(connect('x', { 'coord-agent': 'no spaces allowed' }), /invalid_request/);
  });

  test('ending an HTTP session frees its locks and requeues its claims at once, though their leases were long', async () => {
    const a = await connect('agent-a', { 'coord-agent': 'leaver', 'coord-board': 'end' });
    const b = await connect('agent-b', { 'coord-agent': 'stayer', 'coord-board': 'end' });
    const id = (await a.call('post_task', { title: 'held by a' })).data.task.id;
    await a.call('claim_task', { task_id: id, lease_s: 3600 });
    await a.call('lock_files', { files: ['src/held.ts'], lease_s: 3600 });
    assert.match((await b.call('lock_files', { files: ['src/held.ts'] })).text, /^lock_conflict: /);
    await a.transport.terminateSession();
    await a.client.close();
    assert.equal((await b.call('lock_files', { files: ['src/held.ts'] })).isError, false);
    assert.equal((await b.call('claim_task', { task_id: id })).data.task.claimed_by, 'stayer');
    await b.transport.terminateSession();
    await b.client.close();
  });

  test('a client that exits without DELETE /mcp has its claims and locks freed once its event stream stayed closed for the grace period', async () => {
    const a = await connect('claude-code', { 'coord-agent': 'vanisher', 'coord-board': 'vanish' });
    const b = await connect('agent-b', { 'coord-agent': 'survivor', 'coord-board': 'vanish' });
    const id = (await a.call('post_task', { title: 'held by a client that will vanish' })).data.task.id;
    await a.call('claim_task', { task_id: id, lease_s: 3600 });
    await a.call('lock_files', { files: ['src/vanish.ts'], lease_s: 3600 });
    // The client goes away as Claude Code and Gemini CLI do: its streams close, no DELETE is sent.
    await a.client.close();
    await waitFor(
      async () => (await b.call('lock_files', { files: ['src/vanish.ts'] })).isError === false,
      'the lock freed',
    );
    assert.equal((await b.call('claim_task', { task_id: id })).data.task.claimed_by, 'survivor');
    await b.transport.terminateSession();
    await b.client.close();
  });

  test('a session opened with a Coord-Session id that no session lock file backs is reaped like a plain client once it vanishes', async () => {
    // No `coord mcp` holds <state>/sessions/<id>.lock for this id: nothing but its requests proves it alive.
    const a = await connect('no-lock', {
      'coord-agent': 'lockless',
      'coord-board': 'lockless',
      'coord-session': randomUUID(),
    });
    const b = await connect('agent-b', { 'coord-agent': 'survivor', 'coord-board': 'lockless' });
    await a.call('lock_files', { files: ['src/lockless.ts'], lease_s: 3600 });
    assert.match((await b.call('lock_files', { files: ['src/lockless.ts'] })).text, /^lock_conflict: /);
    await a.client.close();
    await waitFor(
      async () => (await b.call('lock_files', { files: ['src/lockless.ts'] })).isError === false,
      'the lockless session reaped and its lock freed',
    );
    await b.transport.terminateSession();
    await b.client.close();
  });

  test('a subscriber over HTTP gets notifications/resources/updated on its stream', async () => {
    const a = await connect('watcher', { 'coord-agent': 'watcher', 'coord-board': 'push' });
    const b = await connect('poster', { 'coord-agent': 'poster', 'coord-board': 'push' });
    const updates: string[] = [];
    a.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    await a.client.subscribeResource({ uri: 'coord://inbox' });
    await b.call('post_task', { title: 'for the watcher', for: 'watcher' });
    await waitFor(() => updates.length > 0, 'resources/updated over HTTP');
    assert.equal(updates[0], 'coord://inbox');
    for (const c of [a, b]) {
      await c.transport.terminateSession();
      await c.client.close();
    }
  });
});
