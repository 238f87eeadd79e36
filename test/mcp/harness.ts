/** The official SDK client talking to a session's MCP server over an in-memory pair: no sockets, no processes. */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { ResultWrapper } from '../../src/clients/profile.js';
import { buildMcpServer, type ToolSurface } from '../../src/server/mcp/server.js';
import { McpSession, type SessionIdentity } from '../../src/server/mcp/session.js';
import { type Harness, harness, makeSqliteStore } from '../support/ctx.js';

export interface ToolAnswer {
  text: string;
  isError: boolean;
  data: any;
  /** The whole CallToolResult, as the client received it. */
  raw: any;
}

export interface McpAgent {
  client: Client;
  session: McpSession;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

export interface McpHarness extends Harness {
  /** Connect one more agent (its own session) to the same store. */
  agent(
    identity?: Partial<SessionIdentity>,
    client?: { name?: string; capabilities?: Record<string, unknown> },
    server?: { tools?: ToolSurface; wrapper?: ResultWrapper },
  ): Promise<McpAgent>;
}

export async function mcpHarness(): Promise<McpHarness> {
  const h = await harness(makeSqliteStore);
  return {
    ...h,
    async agent(identity = {}, info = {}, shape = {}) {
      const session = new McpSession({ agent: null, board: 'default', root: null, id: randomUUID(), ...identity });
      const server = buildMcpServer({ ctx: h.ctx, session, version: 'test', ...shape });
      const client = new Client(
        { name: info.name ?? 'test-client', version: '1.0.0' },
        { capabilities: info.capabilities ?? {} },
      );
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      await client.connect(a);
      return {
        client,
        session,
        async call(name, args = {}) {
          const res = (await client.callTool({ name, arguments: args })) as any;
          const text = res.content?.map((c: { text?: string }) => c.text ?? '').join('\n') ?? '';
          return { text, isError: res.isError === true, data: res._meta?.['coord/data'], raw: res };
        },
        async close() {
          await client.close();
          await server.close();
        },
      };
    },
  };
}

export { waitFor } from '../support/wait-for.js';
