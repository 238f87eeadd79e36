/**
 * SPEC §10: the pre-edit hook costs at most a few tens of milliseconds per edit, so its entry point must
 * not load the whole CLI: everything `coord hook` reaches, statically, is Node built-ins and coord's
 * own files — never commander, fastify, the MCP SDK or zod (api/routes.ts and core/schemas.ts pull it in).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

/** Static value imports (`import type` loads nothing); the same reading as imports.test.ts. */
const importsOf = (source: string): string[] =>
  [...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? '');

const SRC = new URL('../../src/', import.meta.url).pathname;
const HEAVY = ['src/core/schemas.ts', 'src/api/routes.ts', 'src/core/operations.ts', 'src/cli/program.ts'];

/** Every file and package reachable from `entry` through static value imports. */
function reach(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(join(SRC, '..'), f)), packages: [...packages] };
}

test('coord hook reaches only Node built-ins and light coord files, never the CLI, the server or zod', () => {
  const { files, packages } = reach(join(SRC, 'hooks/main.ts'));
  assert.deepEqual(
    packages.filter((p) => !p.startsWith('node:')),
    [],
    'packages the hook would load',
  );
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `the hook reaches ${heavy}`);
  assert.ok(!files.some((f) => f.startsWith('src/server/') || f.startsWith('src/cli/')), files.join(', '));
});

test('src/main.ts loads the CLI only for commands that are not hooks', () => {
  const main = readFileSync(join(SRC, 'main.ts'), 'utf8');
  assert.deepEqual(
    importsOf(main).filter((s) => !s.startsWith('node:')),
    [],
    'main.ts imports nothing statically but Node built-ins (node:v8 for the daemon)',
  );
  assert.match(main, /command === 'hook' \|\| command === 'prime'/);
});
