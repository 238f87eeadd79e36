/**
 * An agent waits for `coord mcp` to answer initialize (docs/startup.md): what its fast path (cli/mcp-main.ts)
 * reaches through static imports is Node built-ins, fs-ext (the flock addon) and light coord files — never
 * commander (only --help and usage errors load it, dynamically), zod, the route table, the operations, the
 * server or the stores. test/mcp/mcp-start.test.ts checks the same at run time.
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

test('coord mcp reaches only Node built-ins, fs-ext and light coord files: no commander, zod, routes or server', () => {
  const { files, packages } = reach(join(SRC, 'cli/mcp-main.ts'));
  assert.ok(files.includes('src/client/mcp-relay.ts'), 'the relay is reached');
  assert.deepEqual(
    packages.filter((p) => !p.startsWith('node:')),
    ['fs-ext'],
    'packages coord mcp would load',
  );
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `coord mcp reaches ${heavy}`);
  assert.deepEqual(
    files.filter((f) => /^src\/(server|store|api)\/|^src\/core\/ops\//.test(f)),
    [],
  );
});
