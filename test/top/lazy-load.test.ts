import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');
/** Static value imports (a dynamic `import()` is not one: it loads only when that line runs). */
const importsOf = (source: string): string[] =>
  [
    ...source.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ].map((m) => m[1] ?? '');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });

test('only src/cli/top/ imports the terminal UI library, and nothing imports src/cli/top/ statically', () => {
  const broken: string[] = [];
  for (const file of files(SRC)) {
    const rel = relative(SRC, file);
    const inTop = rel.startsWith('cli/top/');
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (spec === 'neo-blessed' && !inTop) broken.push(`${rel} imports neo-blessed`);
      if (/(^|\/)top\/[^/]+\.js$/.test(spec) && !inTop) broken.push(`${rel} imports ${spec} statically`);
    }
  }
  assert.deepEqual(broken, []);
  assert.match(readFileSync(join(SRC, 'cli/commands/top.ts'), 'utf8'), /await import\('\.\.\/top\/app\.js'\)/);
});

test('building the CLI (every command, coord mcp among them) loads no terminal UI library', async () => {
  const { buildProgram } = await import('../../src/cli/program.js');
  buildProgram();
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('neo-blessed'));
  assert.deepEqual(loaded, []);
});
