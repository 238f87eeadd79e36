#!/usr/bin/env node
// The daemon's idle memory (issue 15), two V8 settings held while it starts and set back to V8's defaults by
// `coord serve` once it listens (cli/commands/serve.ts), so the daemon under load runs exactly as V8 would:
// - the young generation: loading the modules makes V8 double it from 1 to 16 MB, which it gives back only when
//   its memory reducer runs, seconds later;
// - TurboFan: the code that runs hot during start-up is Node's module loader (URL, path and realpath helpers,
//   the CommonJS export lexer); optimizing it is work for code that never runs again, and its compile zones
//   stay in the malloc arenas of V8's worker threads (~5 MB RSS, plus the compiler's own pages of the binary).
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

const command = process.argv[2];

// A reader that stops early (`coord ls | head -3`, `grep -m1`, a pager closed) closes the pipe: that is the
// reader's choice, not a failure of the command. Every command, in one place, exits 0 and quietly (issue 26) —
// the hooks as they write (hooks/main.ts): making process.stdout and process.stderr costs an edit's hook ~3 ms.
if (command !== 'hook' && command !== 'prime')
  for (const out of [process.stdout, process.stderr])
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
/** A one-file bundle of the build is used when it is at least as new as the module tsc emitted for its entry. */
function fresh(bundle: string, entry: string): boolean {
  const mtime = (path: string) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return mtime(bundle) > 0 && mtime(bundle) >= mtime(entry);
}
if (command === 'serve') (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1 --no-turbofan');

// Hooks run on every edit: dispatched before the CLI (commander, zod, the operations) is loaded.
if (command === 'hook' || command === 'prime') {
  // The build's one-file bundle of the hooks (scripts/bundle-hooks.mjs; CommonJS, required: read and compiled at
  // once, not through the ES module loader's steps), unless older than what tsc emitted.
  type Hooks = typeof import('./hooks/main.js');
  const { main } = fresh('./hook-bundle/main.cjs', './hooks/main.js')
    ? (createRequire(import.meta.url)('./hook-bundle/main.cjs') as Hooks)
    : ((await import('./hooks/main.js')) as Hooks);
  await main(process.argv.slice(2));
} else if (command === 'mcp') {
  // `coord mcp` loads only the relay (cli/mcp-main.ts): an agent waits for it to answer initialize. The build's
  // one-file bundle of it (scripts/bundle-hooks.mjs) when it is at least as new as what tsc emitted.
  type Mcp = typeof import('./cli/mcp-main.js');
  const { main } = fresh('./mcp-bundle/main.cjs', './cli/mcp-main.js')
    ? (createRequire(import.meta.url)('./mcp-bundle/main.cjs') as Mcp)
    : ((await import('./cli/mcp-main.js')) as Mcp);
  await main(process.argv);
} else if (command === '--version' || command === '-V') {
  // Nothing but the version: not even the CLI parser (issue 26: coord --version within 1.5× of node -e 0).
  const { VERSION } = await import('./core/shared/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  // The daemon loads only its own command (cli/serve-program.ts): it holds what it loads for its whole life.
  // Any other named command loads only its own module (cli/one-command.ts); help and typos get every command.
  const program =
    command === 'serve'
      ? (await import('./cli/serve-program.js')).buildProgram()
      : ((await (await import('./cli/one-command.js')).oneCommandProgram(command)) ??
        (await import('./cli/program.js')).buildProgram());
  await program.parseAsync(process.argv);
}
