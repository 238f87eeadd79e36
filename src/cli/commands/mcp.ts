/**
 * `coord mcp`: the MCP server Claude Code, Cursor and Codex launch — its options and its commander
 * registration (for `coord --help`, `coord mcp --help` and usage errors). The relay itself is mcp-run.ts;
 * cli/mcp-main.ts runs it straight from a plain command line.
 */
import type { Command } from 'commander';

export interface McpFlags {
  agent?: string;
  client?: string;
  board?: string;
  state?: string;
  tools?: string;
  json?: boolean;
}

/** The command's options, once: commander's registration and the fast path (cli/mcp-main.ts) read both. */
export const MCP_OPTIONS = {
  agent: { arg: '<name>', help: 'agent name (default: $COORD_AGENT, else the MCP client name plus a short suffix)' },
  client: {
    arg: '<kind>',
    help: 'the client that runs this (claude, codex, gemini, cursor): act as the same agent as its hooks',
  },
  board: { arg: '<name>', help: 'board (default: $COORD_BOARD, else this git repository, else "default")' },
  state: { arg: '<dir>', help: 'state directory (default: $COORD_STATE or ~/.coord)' },
  tools: {
    arg: '<set>',
    help: "lean (the tools a task needs most), core (the few tools a task needs, short) or all (default: the client's profile: all where it defers tools behind a search, lean for Gemini CLI, else core)",
  },
  json: { arg: '', help: 'accepted like on every command: what this one prints is MCP JSON-RPC already' },
} as const satisfies Record<keyof McpFlags, { arg: string; help: string }>;

export function registerMcp(program: Command): void {
  const command = program
    .command('mcp')
    .description('MCP server on stdio for Claude Code, Cursor and Codex (starts the daemon if none runs)');
  for (const [name, { arg, help }] of Object.entries(MCP_OPTIONS)) command.option(`--${name}${arg && ` ${arg}`}`, help);
  command.action((flags: McpFlags) => runMcp(flags));
}

/** Runs the relay (mcp-run.ts, loaded only now: no other command pays for it) until stdin closes or a signal. */
export async function runMcp(flags: McpFlags): Promise<void> {
  const { runMcp: run } = await import('./mcp-run.js');
  await run(flags);
}
