// No node:crypto here: the command hooks derive a session's agent on every edit (core/shared/sha256.ts).
import { sha256Hex } from './sha256.js';

/** `claude-code#a1f3`: the client's name cut to the agent-name alphabet, plus 16 random bits. */
export function derivedAgentName(clientName: string | undefined): string {
  const base =
    (clientName ?? '')
      .replace(/[^A-Za-z0-9._:@/-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 59) || 'mcp';
  const [hi = 0, lo = 0] = globalThis.crypto.getRandomValues(new Uint8Array(2));
  return `${base}#${((hi << 8) | lo).toString(16).padStart(4, '0')}`;
}

/**
 * SPEC §10 "one agent, one name": the agent name and session uuid both sides of a client session derive from
 * the one fact they share (`key`: `claude:<session id>`, `codex:process:<pid>:<start>`, …). `override` is
 * COORD_AGENT when set. The command hooks (client/agent-identity.ts) and the daemon's http hook route use it.
 */
export function agentOfKey(client: string, key: string, override?: string): { agent: string; sessionId: string } {
  const hash = sha256Hex(key);
  return { agent: override || `${client}#${hash.slice(0, 6)}`, sessionId: uuidFrom(hash) };
}

/** The hex of a sha256 laid out as a uuid (version 8: custom). */
function uuidFrom(hex: string): string {
  const variant = ((Number.parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
