/**
 * Who acts and on which board: the one precedence every entry point uses — the CLI (cli/common.ts), `coord
 * mcp` (cli/commands/mcp-run.ts) and the hooks (hooks/main.ts, pre-commit.ts, and the session name of
 * client/agent-identity.ts). An empty value counts as not given.
 *
 *   agent  1. `--agent NAME`                (CLI, `coord mcp`; the hooks have no flag)
 *          2. `$COORD_AGENT`
 *          3. the client session's name      (`claude#1a2b3c`: the hooks and `coord mcp` of one session derive
 *                                            the same one, docs/hooks.md "One agent, one name")
 *          4. the entry point's fallback     (CLI `<user>@cli`, hooks `<client>#unknown`; `coord mcp` has none:
 *                                            the daemon names the agent after the MCP client)
 *   board  1. `--board NAME`                (CLI, `coord mcp`)
 *          2. `$COORD_BOARD`
 *          3. the board of the git repository of the place (the working directory, the client's project, or
 *             the edited file's repository for a hook)
 *          4. `default`
 */
import { boardForDir } from './board-name.js';

export interface AgentSources {
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The name the client session derives (client/agent-identity.ts), when there is a session. */
  session?: string | null | undefined;
  fallback?: string | undefined;
}

/** The agent by the precedence above; undefined when nothing names one and there is no fallback. */
export function resolveAgent(s: AgentSources & ({ session: string } | { fallback: string })): string;
export function resolveAgent(s: AgentSources): string | undefined;
export function resolveAgent(s: AgentSources): string | undefined {
  return s.flag || s.env.COORD_AGENT || s.session || s.fallback || undefined;
}

/** The board named outright (`--board`, else `$COORD_BOARD`), before any guess from a place; else undefined. */
export function givenBoard(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return flag || env.COORD_BOARD || undefined;
}

/** The board by the precedence above, for work done in `dir`. */
export function resolveBoard(flag: string | undefined, env: NodeJS.ProcessEnv, dir: string): string {
  return givenBoard(flag, env) ?? boardForDir(dir) ?? 'default';
}
