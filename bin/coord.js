#!/usr/bin/env node
// Runs the compiled CLI (dist/, shipped in the package and built by `npm install` in a checkout). Only
// inside a checkout with no build (dist/ missing, src/ present) does it run the TypeScript through tsx, a
// dev dependency; a stale dist/ is the developer's to rebuild (`npm run build`), because finding out would
// mean reading every file under src/ on every start, `coord mcp` included.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/main.js', import.meta.url);
const source = new URL('../src/main.ts', import.meta.url);

if (existsSync(dist)) {
  await import(dist.href);
} else if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  process.stderr.write('coord: dist/main.js is missing; reinstall the package (or run `npm run build`)\n');
  process.exit(1);
}
