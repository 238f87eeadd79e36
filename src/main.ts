#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// The daemon's idle memory (issue 15): loading its modules makes V8 double its young generation from 1 to 16 MB,
// which it gives back only when its memory reducer runs, seconds later. Held at its size while the daemon
// starts; `coord serve` sets the default factor (2) back once it listens, so load still grows it as usual.
if (process.argv[2] === 'serve') setFlagsFromString('--semi-space-growth-factor=1');

// `coord mcp` loads only its own command (cli/mcp-program.ts): an agent waits for it to start.
const { buildProgram } =
  process.argv[2] === 'mcp' ? await import('./cli/mcp-program.js') : await import('./cli/program.js');

await buildProgram().parseAsync(process.argv);
