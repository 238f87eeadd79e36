/**
 * No module-level mutable state in core (issue 35): what a daemon remembers between calls is the server's, handed
 * to each operation in `ctx` (core/presence.ts), never a module's own `let`, `WeakMap` or cache — a module's
 * state is shared by every store and daemon of a process, and outlives them. A module-level collection in core
 * must be typed read-only (`ReadonlySet`, `ReadonlyMap`, `readonly T[]`) so the compiler refuses a write to it.
 */
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { type Reading, readFiles, readSources, tsFiles } from './source-reader.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CORE = join(ROOT, 'src/core');

/** Known, and why each is no board state. */
const EXCEPTIONS: Record<string, string> = {
  // A pool of random bytes refilled 4 KiB at a time (one CSPRNG call per ~200 ids): entropy, read by no one.
  'src/core/shared/ids.ts used': 'the random pool',
};

/** A collection built empty or with `new`: mutable unless its declared type says read-only. */
const COLLECTION = /^(new\s+(Map|Set|WeakMap|WeakSet|WeakRef|Array)\b|\[\s*\]$|\{\s*\}$)/;
const READONLY_TYPE = /^(Readonly(Set|Map|Array)?<|readonly\s)/;

function state(file: string, r: Reading): string[] {
  const where = relative(ROOT, file);
  const out: string[] = [];
  for (const b of r.bindings) {
    if (EXCEPTIONS[`${where} ${b.name}`]) continue;
    if (b.keyword !== 'const') out.push(`${where}:${b.line} ${b.keyword} ${b.name} is module-level state`);
    else if (COLLECTION.test(b.init) && !READONLY_TYPE.test(b.type))
      out.push(`${where}:${b.line} ${b.name} = ${b.init.slice(0, 30)} is a mutable module-level collection`);
  }
  return out;
}

const found = (readings: Map<string, Reading>) => [...readings].flatMap(([f, r]) => state(f, r));

test('no module in src/core/ keeps mutable state of its own', () => {
  assert.deepEqual(found(readFiles(tsFiles(CORE))), []);
});

test('a module-level let, var, WeakMap or empty collection planted in core is found; read-only ones are not', () => {
  const planted = {
    'let.ts': 'let count = 0;\nexport const next = () => ++count;\n',
    'var.ts': 'export var seen = 0;\n',
    'weak-map.ts': 'const byStore = new WeakMap<object, number>();\nexport const of = (s: object) => byStore.get(s);\n',
    'map.ts': 'export const cache = new Map<string, string>();\n',
    'set.ts': "const WAKES = new Set(['a']);\nexport const wakes = (t: string) => WAKES.has(t);\n",
    'array.ts': 'export const queue: string[] = [];\n',
    'object.ts': 'export const byName: Record<string, number> = {};\n',
  };
  const fine = {
    'readonly-set.ts': "const WAKES: ReadonlySet<string> = new Set(['a']);\nexport const w = WAKES;\n",
    'readonly-map.ts': 'export const M: ReadonlyMap<string, number> = new Map([["a", 1]]);\n',
    'readonly-array.ts': "export const A: readonly string[] = ['a'];\n",
    'constants.ts':
      "export const LIMIT = 5;\nexport const NAMES = ['a', 'b'] as const;\nexport function f() { let x = 0; return ++x; }\n",
  };
  const sources = Object.fromEntries(
    Object.entries({ ...planted, ...fine }).map(([name, text]) => [join(CORE, 'planted', name), text]),
  );
  const files = [...new Set(found(readSources(sources)).map((f) => f.split(':')[0]?.split('/').at(-1)))].sort();
  assert.deepEqual(files, Object.keys(planted).sort());
});
