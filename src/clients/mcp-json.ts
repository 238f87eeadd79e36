/**
 * A project's `.mcp.json`, read by Claude Code and by GitHub Copilot CLI alike (Copilot CLI loads it
 * before its own `.github/mcp.json` and `~/.copilot/mcp-config.json`, and a name found there wins). So
 * both setups write one entry, `mcpServers.coord`, the same bytes from either (issue 34 item 15): one
 * `coord` server each client loads once, named as Claude's `mcp_tool` hook and `enabledMcpjsonServers`
 * name it. It names no `--client`: `coord mcp` tells the two apart by the session variable each
 * client gives its MCP server (`CLAUDE_CODE_SESSION_ID`, `COPILOT_AGENT_SESSION_ID`: cli/commands/mcp-run.ts).
 */
import { join } from 'node:path';
import type { ConfigFile, SetupSpec } from './profile.js';

/** `coord mcp`'s arguments without `--client X`. */
export const withoutClient = (args: string[]): string[] =>
  args.filter((a, i) => a !== '--client' && args[i - 1] !== '--client');

export const projectMcpJson = (s: SetupSpec): ConfigFile => ({
  format: 'json',
  path: join(s.root, '.mcp.json'),
  what: 'mcpServers.coord (one entry for Claude Code and Copilot CLI)',
  edits: [
    {
      op: 'set',
      path: ['mcpServers', 'coord'],
      value: { type: 'stdio', command: s.mcp.command, args: withoutClient(s.mcp.args), env: {} },
    },
  ],
});
