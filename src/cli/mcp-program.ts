/**
 * The program `coord mcp` runs: only its own command. Agents start `coord mcp` and wait for it to answer
 * initialize, so it loads nothing the other commands need (main.ts picks this file for `coord mcp`).
 */
import { Command } from 'commander';
import { VERSION } from '../core/shared/version.js';
import { registerMcp } from './commands/mcp.js';
import { EXIT } from './exit-codes.js';

export function buildProgram(): Command {
  const program = new Command('coord')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    });
  registerMcp(program);
  return program;
}
