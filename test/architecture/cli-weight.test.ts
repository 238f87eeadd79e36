/**
 * `coord inbox` is the command an agent runs most (issue 26: ≤ 2.5× `node -e 0`, bench row cli-inbox): what
 * it reaches through imports that load at once is commander, Node built-ins, fs-ext and light coord files —
 * the route table as data, never zod, the operations or their schemas.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { HEAVY, reach, SRC } from './reach.js';

test('coord inbox reaches commander, Node built-ins, fs-ext and light coord files: no zod, operations or schemas', () => {
  const { files, packages } = reach(join(SRC, 'cli/commands/inbox.ts'));
  assert.ok(files.includes('src/api/routes.ts'), 'the route table is reached (as data)');
  assert.deepEqual(packages.filter((p) => !p.startsWith('node:')).sort(), ['commander', 'fs-ext']);
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `coord inbox reaches ${heavy}`);
  assert.deepEqual(
    files.filter((f) => /^src\/(server|store|core\/ops)\//.test(f)),
    [],
  );
});

test('the route table loads no operation: it names them', () => {
  const { packages, files } = reach(join(SRC, 'api/routes.ts'));
  assert.deepEqual(packages, []);
  assert.deepEqual(
    files.filter((f) => f.startsWith('src/core/')),
    [],
  );
});
