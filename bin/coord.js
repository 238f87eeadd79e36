#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm install` through the prepare script). When dist/ is missing
// or older than a file under src/ (a pull without a rebuild), runs the TypeScript source through tsx
// instead, so `coord` never runs stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';

const dist = new URL('../dist/main.js', import.meta.url);
const src = new URL('../src/', import.meta.url);

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const fresh = existsSync(dist) && (!existsSync(src) || statSync(dist).mtimeMs >= newestMtime(src.pathname));
if (fresh) {
  await import(dist.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
