/**
 * The table of client profiles (SPEC §17): adding a client is one file in this folder and one line
 * here. The table's order is the order a hook without `--client` tries each profile's `detect` —
 * a client that also sets another's variables goes before it.
 */
import { claude } from './claude.js';
import { cline } from './cline.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { kilo } from './kilo.js';
import { opencode } from './opencode.js';
import { pi } from './pi.js';
import type { ClientProfile } from './profile.js';
import { qwen } from './qwen.js';

export const PROFILES = {
  // Qwen Code and Copilot CLI also set Claude Code's and Gemini CLI's project variables: they go first.
  qwen,
  copilot,
  opencode,
  kilo,
  cline,
  pi,
  gemini,
  claude,
  codex,
  cursor,
} as const satisfies Record<string, ClientProfile>;

export type ClientKind = keyof typeof PROFILES;

export const CLIENT_KINDS = Object.keys(PROFILES) as ClientKind[];

export const isClientKind = (s: unknown): s is ClientKind => typeof s === 'string' && Object.hasOwn(PROFILES, s);

export const profileOf = (kind: ClientKind): ClientProfile => PROFILES[kind];

/** The client this environment belongs to, when no --client was given. */
export const detectClient = (env: NodeJS.ProcessEnv): ClientKind | undefined =>
  CLIENT_KINDS.find((k) => PROFILES[k].detect(env));

/**
 * The client whose session variable this MCP server was given (`CLAUDE_CODE_SESSION_ID`,
 * `COPILOT_AGENT_SESSION_ID`, …), when no --client was: the shared `.mcp.json` entry names none.
 */
export const sessionClient = (env: NodeJS.ProcessEnv): ClientKind | undefined =>
  CLIENT_KINDS.find((k) => PROFILES[k].identity.mcpEnv.some((v) => Boolean(env[v])));

/** The profile of an MCP client known by its `initialize` name (clientInfo.name), if any names it. */
export const profileByMcpName = (mcpClientName: string | undefined): ClientProfile | undefined =>
  mcpClientName === undefined
    ? undefined
    : Object.values(PROFILES).find((p: ClientProfile) => p.mcpClientNames?.includes(mcpClientName));

export type { ClientProfile } from './profile.js';
