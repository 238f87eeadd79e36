import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { eagerImportsOf } from '../architecture/reach.js';
import { tsFiles } from '../architecture/source-reader.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SRC = join(ROOT, 'src');

test('only src/cli/top/ imports the terminal UI library, and nothing imports src/cli/top/ statically', () => {
  const broken: string[] = [];
  for (const file of tsFiles(SRC)) {
    const rel = relative(SRC, file);
    const inTop = rel.startsWith('cli/top/');
    for (const spec of eagerImportsOf(file)) {
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
