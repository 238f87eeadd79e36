#!/usr/bin/env node
// Runs the compiled CLI (dist/, shipped in the package and built by `npm install` in a checkout). Only
// inside a checkout with no build (dist/ missing, src/ present) does it run the TypeScript through tsx, a
// dev dependency; a stale dist/ is the developer's to rebuild (`npm run build`), because finding out would
// mean reading every file under src/ on every start, `coord mcp` included.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/main.js', import.meta.url);
const source = new URL('../src/main.ts', import.meta.url);

/**
 * A hook (run on every edit) goes straight to the build's one-file hook bundle (scripts/bundle-hooks.mjs,
 * CommonJS) when it is at least as new as what tsc emitted: one ES module less to load (~4 ms of a hook's run
 * here). dist/main.js makes the same choice when it is run itself.
 */
function hookBundle() {
  const command = process.argv[2];
  if (command !== 'hook' && command !== 'prime') return null;
  const bundle = new URL('../dist/hook-bundle/main.cjs', import.meta.url);
  const mtime = (u) => statSync(u, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const built = mtime(bundle);
  return built > 0 && built >= mtime(new URL('../dist/hooks/main.js', import.meta.url)) ? bundle : null;
}

const hooks = hookBundle();
if (hooks) {
  await createRequire(import.meta.url)(fileURLToPath(hooks)).main(process.argv.slice(2));
} else if (existsSync(dist)) {
  await import(dist.href);
} else if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  process.stderr.write('coord: dist/main.js is missing; reinstall the package (or run `npm run build`)\n');
  process.exit(1);
}
