import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const importsOf = (path: string): string[] =>
  [...readFileSync(path, 'utf8').matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? '',
  );

test('the core imports nothing from its edges: no HTTP, MCP, CLI parser, database driver or other src layer', () => {
  const forbidden =
    /^(node:http|node:https|node:net|fastify|commander|better-sqlite3|pg|@modelcontextprotocol\/|pino|fs-ext)/;
  for (const file of files(join(ROOT, 'src/core'))) {
    for (const spec of importsOf(file)) {
      const rel = relative(ROOT, file);
      assert.doesNotMatch(spec, forbidden, `${rel} imports ${spec}`);
      if (spec.startsWith('.')) assert.doesNotMatch(spec, /^\.\.\/\.\.\//, `${rel} reaches outside src/core: ${spec}`);
    }
  }
});

test('stores and transports never import each other', () => {
  for (const file of files(join(ROOT, 'src/store'))) {
    for (const spec of importsOf(file))
      assert.doesNotMatch(spec, /transports\//, `${relative(ROOT, file)} imports ${spec}`);
  }
  for (const file of files(join(ROOT, 'src/transports'))) {
    for (const spec of importsOf(file))
      assert.doesNotMatch(spec, /\/store\//, `${relative(ROOT, file)} imports ${spec}`);
  }
});
