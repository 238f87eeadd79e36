/** What /mcp answers before (or without) a session, and the MCP SDK loaded lazily for it. */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A request with no session that is no initialize: answered here (true), or it opens a session (false). */
export async function answeredWithoutSession(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  // The 2026-07-28 opening probe, answered as a 2025-era server does so the client falls back to initialize.
  const body = req.body as { method?: unknown; id?: unknown } | undefined;
  if (req.method === 'POST' && body?.method === 'server/discover' && isId(body.id)) {
    const message = 'Method not found: server/discover — send initialize (2025-11-25, 2025-06-18, 2025-03-26)';
    reply.code(200).send({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message } });
    return true;
  }
  const { isInitializeRequest } = await sdk();
  if (req.method === 'POST' && isInitializeRequest(req.body)) return false;
  reply.code(400).send(rpcError(-32000, 'Bad Request: no Mcp-Session-Id; send initialize first'));
  return true;
}

const isId = (id: unknown): id is string | number => typeof id === 'string' || typeof id === 'number';
/**
 * The MCP SDK and the tools are loaded with the first /mcp request, not at start: a daemon nobody talks MCP
 * to (or not yet) does not hold them in memory (≈ 10 MB of its idle RSS; issue 15).
 */
let loaded:
  | Promise<{
      isInitializeRequest: typeof import('@modelcontextprotocol/server').isInitializeRequest;
      NodeStreamableHTTPServerTransport: typeof import('@modelcontextprotocol/node').NodeStreamableHTTPServerTransport;
      buildMcpServer: typeof import('./server.js').buildMcpServer;
    }>
  | undefined;
export const sdk = () =>
  (loaded ??= Promise.all([
    import('@modelcontextprotocol/server'),
    import('@modelcontextprotocol/node'),
    import('./server.js'),
  ]).then(([server, node, tools]) => ({
    isInitializeRequest: server.isInitializeRequest,
    NodeStreamableHTTPServerTransport: node.NodeStreamableHTTPServerTransport,
    buildMcpServer: tools.buildMcpServer,
  })));

export const rpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
