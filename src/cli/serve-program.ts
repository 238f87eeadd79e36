/**
 * The program `coord serve` runs: only its own command (main.ts picks this file for `coord serve`). The
 * daemon then holds none of the other commands' modules for its whole life — less of its idle memory.
 */
import { Command } from 'commander';
import { VERSION } from '../core/shared/version.js';
import { registerServe } from './commands/serve.js';
import { EXIT } from './exit-codes.js';

export function buildProgram(): Command {
  const program = new Command('coord')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((err) => {
      process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    });
  registerServe(program);
  return program;
}
