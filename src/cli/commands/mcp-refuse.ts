/**
 * `coord mcp` for an agent name the daemon refuses (`bob smith`, `bøb`, a tab): it still answers, so the
 * client's `mcp_tool` edit hook (Claude Code's `decide_edit`) gets a deny naming why instead of a server that
 * is not there — which Claude Code reads as a failed hook and lets the edit through (issue 34 item 1; SPEC §10
 * "a live daemon's answer is never down"). Every tool call answers the same refusal; nothing reaches a daemon.
 */

import { isJSONRPCRequest, StdioTransport } from '../../client/jsonrpc.js';
import { claudeDeny } from '../../clients/answers.js';
import { DECIDE_EDIT_TOOL } from '../../core/edits/edit-decision.js';

/** Serves initialize, tools/list (decide_edit only) and tools/call with `reason` until stdin closes. */
export async function serveRefusal(reason: string, onClose: () => void): Promise<void> {
  const io = new StdioTransport();
  io.onclose = onClose;
  io.onmessage = (m) => {
    if (!isJSONRPCRequest(m)) return; // notifications need no answer
    const answer = (result: Record<string, unknown>) => void io.send({ jsonrpc: '2.0', id: m.id, result });
    const params = (m.params ?? {}) as { name?: unknown; protocolVersion?: unknown };
    if (m.method === 'initialize')
      answer({
        protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'coord', version: 'refusing' },
        instructions: reason,
      });
    else if (m.method === 'tools/list')
      answer({
        tools: [
          {
            name: DECIDE_EDIT_TOOL,
            description:
              "Called by coord's edit hook before a file is written; refuses while the agent name is invalid.",
            inputSchema: { type: 'object', properties: {}, additionalProperties: true },
          },
        ],
      });
    else if (m.method === 'tools/call')
      answer(
        params.name === DECIDE_EDIT_TOOL
          ? { content: [{ type: 'text', text: JSON.stringify(claudeDeny(reason)) }] }
          : { content: [{ type: 'text', text: reason }], isError: true },
      );
    else if (m.method === 'ping') answer({});
    else void io.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `${m.method}: ${reason}` } });
  };
  await io.start();
}
