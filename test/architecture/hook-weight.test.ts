/**
 * SPEC §10: the pre-edit hook costs at most a few tens of milliseconds per edit, so its entry point must
 * not load the whole CLI: everything `coord hook` reaches, statically, is Node built-ins and coord's
 * own files (and fs-ext, to see the daemon lock held before sending the token) — never commander, fastify, the MCP SDK or zod (api/routes.ts and core/schemas.ts pull it in).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eagerImportsOf, HEAVY, reach, SRC } from './reach.js';

test('coord hook reaches only Node built-ins, fs-ext and light coord files, never the CLI, the server or zod', () => {
  const { files, packages } = reach(join(SRC, 'hooks/main.ts'));
  // fs-ext (the flock addon, ~3 ms to load): the daemon lock must be seen held before the token is sent.
  assert.deepEqual(
    // bun:ffi only under Bun, where fs-ext cannot load (a plugin running the hooks in OpenCode): Bun's own.
    packages.filter((p) => !p.startsWith('node:') && p !== 'bun:ffi'),
    ['fs-ext'],
    'packages the hook would load',
  );
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `the hook reaches ${heavy}`);
  assert.ok(!files.some((f) => f.startsWith('src/server/') || f.startsWith('src/cli/')), files.join(', '));
});

test('src/main.ts loads the CLI only for commands that are not hooks', () => {
  const main = readFileSync(join(SRC, 'main.ts'), 'utf8');
  assert.deepEqual(
    eagerImportsOf(join(SRC, 'main.ts')).filter((s) => !s.startsWith('node:')),
    [],
    'main.ts imports nothing statically but Node built-ins (node:v8 for the daemon)',
  );
  assert.match(main, /command === 'hook' \|\| command === 'prime'/);
});
