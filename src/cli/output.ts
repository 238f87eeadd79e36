/** Human lines on stdout, or the daemon's JSON verbatim with --json; errors say what to do next. */

import { CliError } from '../client/daemon-client.js';
import { isCoordError } from '../core/errors.js';
import { exitCodeFor } from './exit-codes.js';
import { terminalText } from './terminal-text.js';

export interface OutputOptions {
  json?: boolean;
}

export function emit(opts: OutputOptions, value: unknown, human: () => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${terminalText(human())}\n`);
}

export function fail(opts: OutputOptions, err: unknown): never {
  const e =
    err instanceof CliError
      ? err
      : isCoordError(err)
        ? new CliError(err.code, err.message, err.details)
        : new CliError('internal', err instanceof Error ? err.message : String(err), {});
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ error: { ...e.details, code: e.code, message: e.message } }, null, 2)}\n`);
  } else {
    process.stderr.write(`coord: ${e.code}: ${terminalText(e.message)}\n`);
  }
  process.exit(exitCodeFor(e.code));
}

export const clockTime = (iso: string | null): string => (iso ? new Date(iso).toISOString().slice(11, 19) : '-');
