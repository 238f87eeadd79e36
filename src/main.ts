#!/usr/bin/env node
// Hooks run on every edit: dispatched before the CLI (commander, zod, the operations) is loaded.
const command = process.argv[2];
if (command === 'hook' || command === 'prime') {
  const { main } = await import('./hooks/main.js');
  await main(process.argv.slice(2));
} else {
  const { buildProgram } = await import('./cli/program.js');
  await buildProgram().parseAsync(process.argv);
}
