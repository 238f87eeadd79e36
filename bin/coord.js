#!/usr/bin/env node
// Runs the compiled CLI (built by `npm install` via the prepare script); falls back to the TypeScript source.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/main.js', import.meta.url);
if (existsSync(dist)) {
  await import(dist.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/main.ts', import.meta.url).href);
}
