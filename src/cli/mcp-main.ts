/**
 * `coord mcp`'s entry point (main.ts dispatches it before the CLI loads): an agent waits for it to answer
 * initialize, and commander alone costs ~15 ms to load. A command line of known options only — what every
 * client's configuration holds — is read with node:util's parseArgs and runs the relay at once; anything
 * else (--help, a typo, a missing value, an extra argument) goes to commander (mcp-program.ts), so help
 * and usage errors read as on every other command.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { MCP_OPTIONS, type McpFlags } from './commands/mcp.js';
import { runMcp } from './commands/mcp-run.js';

const OPTIONS: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  Object.entries(MCP_OPTIONS).map(([name, { arg }]) => [name, { type: arg ? 'string' : 'boolean' }]),
);

/** The flags of `coord mcp <args>` when they are known options with their values, else null. */
export function plainMcpFlags(args: readonly string[]): McpFlags | null {
  try {
    return {
      ...parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false }).values,
    } as McpFlags;
  } catch {
    return null;
  }
}

/** `argv` as process.argv: node, the script, 'mcp', then the command's own arguments. */
export async function main(argv: readonly string[]): Promise<void> {
  const flags = plainMcpFlags(argv.slice(3));
  if (flags) return runMcp(flags);
  const { buildProgram } = await import('./mcp-program.js');
  await buildProgram().parseAsync([...argv]);
}
