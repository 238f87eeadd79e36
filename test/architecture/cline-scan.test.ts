/**
 * Cline 3.0.65 loads a plugin only after scanning every .js file it reaches with regular expressions
 * (extensions/plugin-sandbox-bootstrap.js: `import … from '…'`, `export … from '…'`, `import('…')`,
 * `require('…')`, comments included) and refuses the whole plugin when a bare name does not resolve from
 * the file — no pre-edit check, no prime. coord's plugin reaches the hook code, so one literal
 * `require('bun:ffi')` in src/state-dir made Cline run without coord. This reads the same files the
 * same way (the TypeScript sources compile to the same specifiers).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
/** The four patterns of Cline's scan, as its bootstrap writes them. */
const SCAN = [
  /\bimport\s+(?:type\s+)?[^"'`]*?\bfrom\s*["'`]([^"'`]+)["'`]/g,
  /\bexport\s+[^"'`]*?\bfrom\s*["'`]([^"'`]+)["'`]/g,
  /\bimport\s*\(\s*["'`]([^"'`]+)["'`]\s*\)/g,
  /\brequire\s*\(\s*["'`]([^"'`]+)["'`]\s*\)/g,
];

function scan(text: string): string[] {
  return [...new Set(SCAN.flatMap((re) => [...text.matchAll(re)].map((m) => m[1] ?? '')))].filter(Boolean);
}

/** The bare names Cline would refuse, walking from `entry` through relative specifiers. */
function refused(entry: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    const from = createRequire(file);
    for (const spec of scan(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        continue;
      }
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      try {
        from.resolve(spec);
      } catch {
        out.push(`${file.slice(ROOT.length)}: ${spec}`);
      }
    }
  };
  visit(entry);
  return out;
}

test("every name Cline's plugin sandbox finds in the files coord's Cline plugin reaches resolves there, or the plugin would not load", () => {
  const entry = join(ROOT, 'src/plugins/cline.ts');
  assert.deepEqual(refused(entry), []);
});

test("the scan reads like Cline's: a literal require of a Bun builtin is found, one with a comment after the name is not", () => {
  assert.deepEqual(scan("const x = require('bun:ffi');"), ['bun:ffi']);
  assert.deepEqual(scan("const x = require('bun:ffi' /* Bun's own */);"), []);
  assert.deepEqual(scan("// require('name') in a comment\nimport { a } from './a.js';").sort(), ['./a.js', 'name']);
});
