/**
 * SPEC §17 "A tool surface sized for the client": clients that load every tool's schema into every
 * request get the core set by default — at most 6,000 bytes of definitions as their model receives
 * them — and `--tools all` (or a client that defers tools behind a search) gets every tool.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROFILES } from '../../src/clients/index.js';
import { runCoord } from '../hooks/run-hook.js';
import { tempDir } from '../support/ctx.js';
import { type SpawnedDaemon, spawnDaemon } from '../support/daemon.js';
import { mcpHarness } from './harness.js';
import { CORE_TOOLS, SPEC_TOOLS } from './spec-tools.js';

/** SPEC §17's budget for the core set's definitions. */
const CORE_BUDGET = 6000;

interface Listed {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
}

/** The definitions as a client without deferral hands them to its model: an OpenAI-style function each, named as it names them. */
export function definitionBytes(tools: Listed[], name: (tool: string) => string): number {
  return tools.reduce(
    (sum, t) =>
      sum +
      Buffer.byteLength(
        JSON.stringify({
          type: 'function',
          function: { name: name(t.name), description: t.description ?? '', parameters: t.inputSchema },
        }),
      ),
    0,
  );
}

const bare = (tools: Listed[]) =>
  tools.reduce(
    (sum, t) =>
      sum + Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    0,
  );

describe('the tool surface', () => {
  test('the core set holds inbox, claim, submit, release, notes, messages, who and locks, in at most 6,000 bytes as every client without deferral names and wraps them', async (t) => {
    const h = await mcpHarness();
    const a = await h.agent({}, {}, { tools: 'core' });
    const { tools } = await a.client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), [...CORE_TOOLS].sort());
    t.diagnostic(`core: ${tools.length} tools, ${bare(tools)} bytes (name, description, input schema)`);
    for (const p of Object.values(PROFILES)) {
      if (p.toolSurface !== 'core') continue;
      const bytes = definitionBytes(tools, p.mcpToolName);
      t.diagnostic(`${p.kind}: ${bytes} bytes of coord tool definitions per request`);
      assert.ok(bytes <= CORE_BUDGET, `${p.kind}: ${bytes} bytes`);
    }
    await a.close();
  });

  test('all lists every tool with its full description', async (t) => {
    const h = await mcpHarness();
    const a = await h.agent({}, {}, { tools: 'all' });
    const { tools } = await a.client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), [...SPEC_TOOLS].sort());
    t.diagnostic(`all: ${tools.length} tools, ${bare(tools)} bytes`);
    await a.close();
  });

  test('a core tool takes every argument its full form takes: the listing is shorter, the tool the same', async () => {
    const h = await mcpHarness();
    const a = await h.agent({ agent: 'slim' }, {}, { tools: 'core' });
    const posted = await a.call('post_task', { title: 'with a key', idempotency_key: 'k1', priority: 3 });
    assert.equal(posted.isError, false, posted.text);
    assert.equal(posted.data.task.priority, 3);
    const claimed = await a.call('claim_task', { task_id: posted.data.task.id, lease_s: 900 });
    assert.equal(claimed.isError, false, claimed.text);
    assert.equal(Date.parse(claimed.data.lease_until) - h.ctx.clock.now(), 900_000);
    const bad = await a.call('claim_task', { task_id: 'not a valid id!' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /^invalid_request: /);
    await a.close();
  });
});

describe('coord setup --tools', () => {
  test('--tools all puts `--tools all` in the coord mcp command of a client whose profile gets the core set; its own default adds nothing', async () => {
    const h = tempDir('coord-tools-home-');
    const env = { HOME: h, CLAUDE_CONFIG_DIR: '' };
    const all = await runCoord(['setup', 'gemini', '--tools', 'all', '--json', '--state', join(h, 's')], { env });
    assert.equal(all.code, 0, all.stderr);
    const settings = JSON.parse(JSON.parse(all.stdout).files[0].content);
    assert.deepEqual(settings.mcpServers.coord.args.slice(1), [
      'mcp',
      '--client',
      'gemini',
      '--tools',
      'all',
      '--state',
      join(h, 's'),
    ]);
    const plain = await runCoord(['setup', 'claude', '--tools', 'all', '--json', '--state', join(h, 's')], { env });
    assert.doesNotMatch(plain.stdout, /--tools/);
    const bad = await runCoord(['setup', 'gemini', '--tools', 'some'], { env });
    assert.equal(bad.code, 1);
  });
});

describe('the tool surface over HTTP', () => {
  let daemon: SpawnedDaemon;
  before(async () => {
    daemon = await spawnDaemon();
  });
  after(async () => {
    await daemon.stop();
  });

  const listed = async (name: string, headers: Record<string, string> = {}, query = '') => {
    const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp${query}`), {
      requestInit: { headers: { authorization: `Bearer ${daemon.token}`, ...headers } },
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    await transport.terminateSession();
    await client.close();
    return names;
  };

  test('a client is offered what its profile says by its initialize name: Codex the core set, Claude Code all, an unknown client all; Coord-Tools or ?tools= decides over the name', async () => {
    assert.deepEqual(await listed('codex-mcp-client'), [...CORE_TOOLS].sort());
    assert.deepEqual(await listed('claude-code'), [...SPEC_TOOLS].sort());
    assert.deepEqual(await listed('some-program'), [...SPEC_TOOLS].sort());
    assert.deepEqual(await listed('codex-mcp-client', { 'coord-tools': 'all' }), [...SPEC_TOOLS].sort());
    assert.deepEqual(await listed('some-program', {}, '?tools=core'), [...CORE_TOOLS].sort());
  });
});
