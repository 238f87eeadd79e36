import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Static value imports and re-exports (`import type` is erased at build time and loads nothing). */
export const importsOf = (source: string): string[] =>
  [...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? '');

/** The top folder of src/ a relative import lands in (`core`, `store`, …), or null for a package. */
const layerOf = (file: string, spec: string): string | null => {
  if (!spec.startsWith('.')) return null;
  const target = relative(SRC, resolve(dirname(file), spec));
  return target.startsWith('..') ? '(outside src)' : (target.split('/')[0] ?? null);
};

/** Which layers each layer may import (STYLE.md: dependencies read like the diagram). */
export const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  clients: ['clients'],
  // Plugins run inside other programs (OpenCode, Cline, Pi): Node built-ins and each other only.
  plugins: ['plugins'],
  store: ['store', 'core'],
  'state-dir': ['state-dir', 'core'],
  api: ['api', 'core'],
  server: ['server', 'core', 'store', 'state-dir', 'api', 'clients'],
  client: ['client', 'core', 'state-dir', 'api', 'clients'],
  cli: ['cli', 'client', 'state-dir', 'core', 'api', 'clients'],
  hooks: ['hooks', 'client', 'state-dir', 'core', 'api', 'clients'],
};

/** Every rule broken by one file's source, as `layer → other: spec` lines. */
export function violations(file: string, source: string): string[] {
  const layer = relative(SRC, file).split('/')[0] ?? '';
  const allowed = ALLOWED[layer];
  if (!allowed) return [];
  const out: string[] = [];
  for (const spec of importsOf(source)) {
    const to = layerOf(file, spec);
    if (to !== null && !allowed.includes(to)) out.push(`${relative(ROOT, file)} (${layer}) imports ${to}: ${spec}`);
    if (
      layer === 'core' &&
      /^(node:http|node:https|node:net|fastify|commander|better-sqlite3|pg|@modelcontextprotocol\/|pino|fs-ext)/.test(
        spec,
      )
    )
      out.push(`${relative(ROOT, file)} (core) imports an edge package: ${spec}`);
  }
  return out;
}

test('every file in src/ imports only the layers its folder may depend on', () => {
  const broken = files(SRC).flatMap((f) => violations(f, readFileSync(f, 'utf8')));
  assert.deepEqual(broken, []);
});

test('every top folder of src/ has a dependency rule', () => {
  const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
  assert.deepEqual(
    folders.filter((f) => !ALLOWED[f]),
    [],
  );
});

for (const [layer, allowed] of Object.entries(ALLOWED)) {
  test(`a planted import breaks the rule of src/${layer}/`, () => {
    const forbidden = Object.keys(ALLOWED).find((l) => !allowed.includes(l)) ?? 'cli';
    const file = join(SRC, layer, 'planted.ts');
    const planted = `import { x } from '../${forbidden}/anything.js';\n`;
    assert.equal(violations(file, planted).length, 1, `${layer} importing ${forbidden} must be refused`);
  });
}

test('a planted import of an edge package into src/core/ is refused', () => {
  assert.equal(violations(join(SRC, 'core', 'planted.ts'), "import Fastify from 'fastify';\n").length, 1);
});
