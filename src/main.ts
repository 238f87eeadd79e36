#!/usr/bin/env node
// The daemon's idle memory (issue 15): loading its modules makes V8 double its young generation from 1 to 16 MB,
// which it gives back only when its memory reducer runs, seconds later. Held at its size while the daemon
// starts; `coord serve` sets the default factor (2) back once it listens, so load still grows it as usual.
const command = process.argv[2];
if (command === 'serve') (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');

// Hooks run on every edit: dispatched before the CLI (commander, zod, the operations) is loaded.
if (command === 'hook' || command === 'prime') {
  const { main } = await import('./hooks/main.js');
  await main(process.argv.slice(2));
} else if (command === 'mcp') {
  // `coord mcp` loads only the relay (cli/mcp-main.ts): an agent waits for it to answer initialize.
  const { main } = await import('./cli/mcp-main.js');
  await main(process.argv);
} else {
  const { buildProgram } = await import('./cli/program.js');
  await buildProgram().parseAsync(process.argv);
}
