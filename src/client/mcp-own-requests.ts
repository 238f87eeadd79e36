/**
 * What `coord mcp` says to the daemon or the agent of its own: the replay requests of a reconnect (answered to
 * the bridge, never shown to the agent), and the answer to the 2026-07-28 protocol's opening probe.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/server';
import { DaemonGone, type DaemonLink } from './daemon-link.js';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from './jsonrpc.js';

const INTERNAL = 'coord-bridge:';

/** Requests of the bridge's own (a replay), answered to the bridge and never shown to the agent. */
export class OwnRequests {
  private readonly waiting = new Map<RequestId, (m: JSONRPCMessage) => void>();
  private next = 0;

  async ask(link: DaemonLink, request: JSONRPCRequest): Promise<JSONRPCMessage> {
    const id = `${INTERNAL}${this.next++}`;
    const answer = new Promise<JSONRPCMessage>((resolve) => this.waiting.set(id, resolve));
    try {
      const { answered } = await link.post({ ...request, id });
      // The answer is read off the stream before the stream ends, so it wins the race if it came at all.
      const reply = await Promise.race([answer, answered.then(() => undefined)]);
      if (!reply) throw new DaemonGone(`the daemon did not answer ${request.method}`);
      if (isJSONRPCErrorResponse(reply)) throw new Error(`${request.method} failed: ${reply.error.message}`);
      return reply;
    } finally {
      this.waiting.delete(id);
    }
  }

  /** An answer from the daemon: true when it answers one of these (and is taken here). */
  took(id: RequestId | undefined, m: JSONRPCMessage): boolean {
    const own = id !== undefined ? this.waiting.get(id) : undefined;
    own?.(m);
    return own !== undefined;
  }
}

/** `server/discover`: the 2026-07-28 protocol's opening probe. */
export const DISCOVER = 'server/discover';
export const isDiscoverProbe = (m: JSONRPCRequest): boolean => m.method === DISCOVER;

/** The answer of a server that speaks the 2025 protocols: the client falls back to `initialize`. */
export const discoverUnsupported = (id: RequestId): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32601,
    message: `Method not found: ${DISCOVER} — send initialize (2025-11-25, 2025-06-18, 2025-03-26)`,
  },
});

export const rpc = (method: string): JSONRPCRequest => ({ jsonrpc: '2.0', id: 0, method });

export function protocolOf(m: JSONRPCMessage): string | undefined {
  const v = isJSONRPCResultResponse(m) ? (m.result as { protocolVersion?: unknown }).protocolVersion : undefined;
  return typeof v === 'string' ? v : undefined;
}
