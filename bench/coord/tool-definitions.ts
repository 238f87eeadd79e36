/**
 * SPEC §17: the bytes of coord's tool definitions each client's model receives in every request —
 * listed by coord's MCP server (core or all), then named and wrapped as an OpenAI-style function
 * (`{type, function: {name, description, parameters}}`), the shape most clients send. Runs in process.
 *
 *   surface 'core' | 'all' → { bytes (the worst client), per client }
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { PROFILES } from '../../src/clients/index.js';
import { ManualClock } from '../../src/core/clock.js';
import { Presence } from '../../src/core/presence.js';
import { buildMcpServer, type ToolSurface } from '../../src/server/mcp/server.js';
import { McpSession } from '../../src/server/mcp/session.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

export async function toolDefinitionBytes(
  surface: ToolSurface,
): Promise<{ value: number; extra: Record<string, number> }> {
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
    const { tools } = await client.listTools();
    const extra: Record<string, number> = { tools: tools.length };
    let worst = 0;
    for (const p of Object.values(PROFILES)) {
      const bytes = tools.reduce(
        (sum, t) =>
          sum +
          Buffer.byteLength(
            JSON.stringify({
              type: 'function',
              function: { name: p.mcpToolName(t.name), description: t.description ?? '', parameters: t.inputSchema },
            }),
          ),
        0,
      );
      extra[`${p.kind}_bytes`] = bytes;
      if (p.toolSurface === 'core' || surface === 'all') worst = Math.max(worst, bytes);
    }
    return { value: worst, extra };
  } finally {
    await client.close();
    await server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
