// The floor of a native (mcp_tool) hook in Claude Code: a stdio MCP server with one tool that answers at once,
// with no dependency (newline-delimited JSON-RPC), so what a hook calling it costs is Claude Code's own work.
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined) return;
  if (m.method === 'initialize')
    send({
      jsonrpc: '2.0',
      id: m.id,
      result: {
        protocolVersion: m.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'noop', version: '1.0.0' },
      },
    });
  else if (m.method === 'tools/list')
    send({
      jsonrpc: '2.0',
      id: m.id,
      result: { tools: [{ name: 'noop', description: 'Answers at once.', inputSchema: { type: 'object' } }] },
    });
  else if (m.method === 'tools/call')
    send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: '{}' }] } });
  else send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `no method ${m.method}` } });
});
