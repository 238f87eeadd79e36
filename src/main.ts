#!/usr/bin/env node
// `coord mcp` loads only its own command (cli/mcp-program.ts): an agent waits for it to start.
const { buildProgram } =
  process.argv[2] === 'mcp' ? await import('./cli/mcp-program.js') : await import('./cli/program.js');

await buildProgram().parseAsync(process.argv);
