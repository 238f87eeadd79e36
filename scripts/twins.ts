/**
 * How much the two stores repeat each other (issue 35): pairs the .ts files of src/store/sqlite and
 * src/store/postgres that have the same name once the store's name is replaced (so sqlite-store.ts pairs
 * with postgres-store.ts and sqlite-errors.ts with pg-errors.ts), normalises each line (trimmed, whitespace
 * collapsed, sqlite/postgres/Sqlite/Postgres/pg → one token; empty lines, import lines and comments left
 * out), and counts the identical lines of each pair as a multiset intersection.
 * share = 2 × identical / (lines of both). Prints one row per pair, largest identical count first, then the total.
 * Usage: node --import tsx scripts/twins.ts [root=src/store] [--show <sqlite file name>: print its identical lines]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const STORE_NAME = /sqlite|postgres(ql)?|pg(?=[^a-z]|$)/gi;

const args = process.argv.slice(2);
const showAt = args.indexOf('--show');
const show = showAt >= 0 ? args.splice(showAt, 2)[1] : undefined;
const root = args[0] ?? 'src/store';

function pairKey(name: string): string {
  return name.replace(STORE_NAME, '~');
}

/** The meaningful lines of a file: no blank lines, comments or import/re-export statements. */
export function normalisedLines(text: string): string[] {
  const out: string[] = [];
  let inBlock = false;
  let inImport = false;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) continue;
      inBlock = false;
      line = line.slice(end + 2).trim();
    }
    if (inImport) {
      if (/from\s+['"][^'"]+['"];?$/.test(line) || /^['"][^'"]+['"];?$/.test(line)) inImport = false;
      continue;
    }
    if (line.startsWith('/*')) {
      if (!line.includes('*/')) inBlock = true;
      continue;
    }
    if (line.startsWith('//')) continue;
    if (/^(import|export)\b.*\bfrom\s+['"][^'"]+['"];?$/.test(line) || /^import\s+['"]/.test(line)) continue;
    if (/^(import|export)(\s+type)?\s*\{[^}]*$/.test(line) || /^import\s+[\w*$]/.test(line)) {
      if (!/from\s+['"]/.test(line)) inImport = true;
      continue;
    }
    line = line
      .replace(/\s+\/\/.*$/, '')
      .replace(/\s+/g, ' ')
      .replace(STORE_NAME, '~');
    if (line !== '') out.push(line);
  }
  return out;
}

function identical(a: string[], b: string[], print = false): number {
  const counts = new Map<string, number>();
  for (const l of a) counts.set(l, (counts.get(l) ?? 0) + 1);
  let same = 0;
  for (const l of b) {
    const n = counts.get(l) ?? 0;
    if (n > 0) {
      same++;
      counts.set(l, n - 1);
      if (print) console.log(`  ${l}`);
    }
  }
  return same;
}

function tsFilesByKey(dir: string): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.ts')) byKey.set(pairKey(name), name);
  }
  return byKey;
}

const sqliteDir = join(root, 'sqlite');
const postgresDir = join(root, 'postgres');
const sqlite = tsFilesByKey(sqliteDir);
const postgres = tsFilesByKey(postgresDir);
const rows: { name: string; lines: number; same: number }[] = [];
for (const [key, sName] of sqlite) {
  const pName = postgres.get(key);
  if (pName === undefined) continue;
  const a = normalisedLines(readFileSync(join(sqliteDir, sName), 'utf8'));
  const b = normalisedLines(readFileSync(join(postgresDir, pName), 'utf8'));
  rows.push({
    name: sName === pName ? sName : `${sName} | ${pName}`,
    lines: a.length + b.length,
    same: identical(a, b, show === sName),
  });
}
rows.sort((x, y) => y.same - x.same || x.name.localeCompare(y.name));
const pct = (same: number, lines: number) => (lines === 0 ? 0 : (200 * same) / lines).toFixed(1).padStart(5);
console.log(`${'pair'.padEnd(40)} ${'lines'.padStart(6)} ${'same'.padStart(5)} share%`);
let lines = 0;
let same = 0;
for (const r of rows) {
  lines += r.lines;
  same += r.same;
  console.log(
    `${r.name.padEnd(40)} ${String(r.lines).padStart(6)} ${String(r.same).padStart(5)} ${pct(r.same, r.lines)}`,
  );
}
console.log(
  `total: ${rows.length} pairs, ${lines} lines, ${same} identical in each twin, share ${pct(same, lines).trim()} %`,
);
