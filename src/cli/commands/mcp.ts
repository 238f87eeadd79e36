/**
 * `coord mcp`: the MCP server Claude Code, Cursor and Codex launch. It relays
 * stdio to the daemon's /mcp (starting a daemon if none runs), and holds a
 * session lock for its whole life so the daemon frees its claims and locks
 * the moment it exits (SPEC rule 13). stdout carries protocol only.
 */
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';

interface McpFlags {
  agent?: string;
  board?: string;
  state?: string;
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('MCP server on stdio for Claude Code, Cursor and Codex (starts the daemon if none runs)')
    .option('--agent <name>', 'agent name (default: $COORD_AGENT, else the MCP client name plus a short suffix)')
    .option('--board <name>', 'board (default: $COORD_BOARD, else this git repository, else "default")')
    .option('--state <dir>', 'state directory (default: $COORD_STATE or ~/.coord)')
    .action(async (flags: McpFlags) => {
      // Loaded here, not at the top: an agent waits for `coord mcp` to answer initialize, so it loads only what
      // it uses — no SDK server, no zod (the names are checked by the same rule as core/schemas.ts, names.ts).
      const { ensureDaemon, findDaemon } = await import('../../client/daemon-launcher.js');
      const { Bridge } = await import('../../client/mcp-relay.js');
      const { StdioTransport } = await import('../../client/jsonrpc.js');
      const { isAgentName, isBoardName } = await import('../../core/names.js');
      const { findRepoRoot, resolveBoard } = await import('../../state-dir/board-name.js');
      const { holdSessionLock } = await import('../../state-dir/index.js');
      const { resolveStateDir } = await import('../../state-dir/state-dir.js');
      const env = process.env;
      const log = (message: string) => process.stderr.write(`coord mcp: ${message}\n`);
      const cwd = process.cwd();
      const agent = flags.agent ?? env.COORD_AGENT;
      const board = resolveBoard(flags.board, env, cwd);
      if ((agent !== undefined && !isAgentName(agent)) || !isBoardName(board)) {
        log(`invalid agent or board name "${agent ?? board}": use 1–64 characters of A-Z a-z 0-9 . _ : # @ / -`);
        process.exit(EXIT.usage);
      }
      const stateDir = resolveStateDir(flags.state, env);
      const session = holdSessionLock(stateDir);
      const bridge = new Bridge({
        agent: new StdioTransport(),
        connect: () =>
          ensureDaemon({ stateDir, env, log, command: [process.execPath, ...process.execArgv, process.argv[1] ?? ''] }),
        find: () => findDaemon(stateDir),
        headers: {
          'coord-board': board,
          'coord-session': session.sessionId,
          // Outside a repository, the working directory is the root that file paths are relative to.
          'coord-root': encodeURIComponent(findRepoRoot(cwd) ?? cwd),
          ...(agent ? { 'coord-agent': agent } : {}),
        },
        log,
      });
      const exit = () => {
        session.release();
        process.exit(EXIT.ok);
      };
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        process.once(signal, () => void bridge.close().finally(exit));
      }
      await bridge.run();
      exit();
    });
}
