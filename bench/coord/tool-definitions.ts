/**
 * SPEC §17: the bytes of coord's tool definitions each client's model receives in every request —
 * listed by coord's MCP server (core or all), then named and wrapped as an OpenAI-style function
 * (`{type, function: {name, description, parameters}}`), the shape most clients send. Runs in process.
 *
 *   'profile' | 'all' → { bytes (the worst client), per client }
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { PROFILES } from '../../src/clients/index.js';
import { Presence } from '../../src/core/presence.js';
import { ManualClock } from '../../src/core/shared/clock.js';
import { buildMcpServer, type ToolSurface } from '../../src/server/mcp/server.js';
import { McpSession } from '../../src/server/mcp/session.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** The tools coord's MCP server lists for a surface. */
async function listed(
  surface: ToolSurface,
): Promise<{ name: string; description?: string | undefined; inputSchema: unknown }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'coord-bench-tools-'));
  const store = new SqliteStore({ path: join(dir, 'coord.db') });
  const session = new McpSession({ agent: 'bench', board: 'default', root: null, id: randomUUID() });
  const server = buildMcpServer({
    ctx: { store, clock: new ManualClock(), presence: new Presence() },
    session,
    version: 'bench',
    tools: surface,
  });
  const client = new Client({ name: 'bench', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(b);
    await client.connect(a);
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `profile`: each client that does not defer tools gets the set its profile says (core, or lean), plus
 * the bytes the client adds to every tool itself (`addsPerTool`); the worst of them. `all`: every tool.
 */
export async function toolDefinitionBytes(
  surface: 'profile' | 'all',
): Promise<{ value: number; extra: Record<string, number> }> {
  const extra: Record<string, number> = {};
  let worst = 0;
  const sets = new Map<ToolSurface, Awaited<ReturnType<typeof listed>>>();
  for (const p of Object.values(PROFILES)) {
    const set: ToolSurface = surface === 'all' ? 'all' : p.toolSurface;
    if (surface === 'profile' && set === 'all') continue;
    let tools = sets.get(set);
    if (!tools) {
      tools = await listed(set);
      sets.set(set, tools);
    }
    const bytes =
      tools.reduce(
        (sum, t) =>
          sum +
          Buffer.byteLength(
            JSON.stringify({
              type: 'function',
              function: { name: p.mcpToolName(t.name), description: t.description ?? '', parameters: t.inputSchema },
            }),
          ),
        0,
      ) + (surface === 'all' ? 0 : (p.addsPerTool ?? 0) * tools.length);
    extra[`${p.kind}_bytes`] = bytes;
    extra[`${p.kind}_tools`] = tools.length;
    worst = Math.max(worst, bytes);
  }
  return { value: worst, extra };
}
