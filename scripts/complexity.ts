/**
 * `npm run complexity`: every function of src/ over complexity 15, counted as test/architecture/complexity.ts
 * says, and every file of src/ over 300 lines. Exits 1 when a function is over 25, more than 20 are over 15 or a
 * file is over 300 lines (the house's limits), so `npm run check` keeps them. `--all` prints every function.
 */

import { readFileSync } from 'node:fs';
import { complexityOf } from '../test/architecture/complexity.js';
import { tsFiles } from '../test/architecture/source-reader.js';

const MAX = 25;
const HIGH = 15;
const MAX_HIGH = 20;
const MAX_LINES = 300;

const all = complexityOf(tsFiles('src')).sort((a, b) => b.complexity - a.complexity);
const shown = process.argv.includes('--all') ? all : all.filter((f) => f.complexity > HIGH);
for (const f of shown) console.log(`${String(f.complexity).padStart(3)}  ${f.file}:${f.line} ${f.name}`);
const over = all.filter((f) => f.complexity > MAX);
const high = all.filter((f) => f.complexity > HIGH);
console.log(
  `${all.length} functions · ${high.length} over ${HIGH} (limit ${MAX_HIGH}) · ${over.length} over ${MAX} (limit 0)`,
);
const long = tsFiles('src').filter((f) => readFileSync(f, 'utf8').trimEnd().split('\n').length > MAX_LINES);
for (const f of long) console.log(`over ${MAX_LINES} lines: ${f}`);
if (over.length > 0 || high.length > MAX_HIGH || long.length > 0) process.exit(1);
