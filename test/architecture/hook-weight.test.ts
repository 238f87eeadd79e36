/**
 * SPEC §10: the pre-edit hook costs at most a few tens of milliseconds per edit (issue 25: ≤ 1.3× a bare
 * `node -e 0` hook), so what `coord hook pre-edit` loads is counted here, from the sources: its entry
 * (hooks/main.ts, which loads pre-edit with it and every other event's module only when that event runs)
 * loads Node's fs, path, module and net and coord's own light files — never commander, fastify, the MCP SDK
 * or zod, and not node:http (a request over node:net instead), node:crypto (a sha256 of its own),
 * node:child_process or node:os (only on fallbacks, inside the function that needs them), or fs-ext (the
 * daemon lock is seen held through /proc/locks; the flock addon only where that cannot show it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DECLARED, eagerImportsOf, HEAVY, reach, SRC } from './reach.js';

const ENTRY = join(SRC, 'hooks/main.ts');
/** Node built-ins a pre-edit hook may load at once: the hook's stdin pipe loads node:net anyway. */
const LIGHT = ['node:fs', 'node:module', 'node:net', 'node:path'];
/** What the pre-edit path must not load at once, each ~2–7 ms of a hook's run (or a native addon). */
const BANNED = [
  'node:http',
  'node:crypto',
  'node:child_process',
  'node:os',
  'fs-ext',
  'node:readline',
  'node:fs/promises',
];

test('coord hook pre-edit loads at once only node:fs, node:path, node:module, node:net and light coord files', () => {
  const { files, packages } = reach(ENTRY, DECLARED);
  assert.deepEqual(
    packages.filter((p) => !LIGHT.includes(p)),
    [],
    'packages the pre-edit hook would load with its modules',
  );
  for (const banned of BANNED) assert.ok(!packages.includes(banned), `the pre-edit hook loads ${banned}`);
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `the pre-edit hook reaches ${heavy}`);
  for (const other of ['pre-commit', 'shell-edits', 'prime', 'stop'])
    assert.ok(!files.includes(`src/hooks/${other}.ts`), `the pre-edit hook loads hooks/${other}.ts`);
});

test('on the pre-edit path, node:os and node:child_process are required only inside the fallbacks that need them', () => {
  // A require inside a function loads when it runs: os for an identity without a client process, child_process
  // for `ps` where /proc is missing. Never node:http or node:crypto, whichever way.
  const { packages } = reach(ENTRY);
  assert.deepEqual(
    packages.filter((p) => !LIGHT.includes(p)).sort(),
    ['node:child_process', 'node:os'],
    'packages the pre-edit path names in a require',
  );
});

test('every coord hook event reaches only Node built-ins, fs-ext and light coord files, never the CLI, the server or zod', () => {
  // Each event's module (hooks/main.ts imports all but pre-edit's when their event runs), and the daemon lock's
  // try-lock (loaded only where the daemon's process cannot be seen alive).
  const modules = ['main', 'pre-commit', 'shell-edits', 'prime', 'stop'].map((m) => `hooks/${m}.ts`);
  for (const module of [...modules, 'state-dir/daemon-lock.ts']) {
    const { files, packages } = reach(join(SRC, module));
    assert.deepEqual(
      // bun:ffi only under Bun, where fs-ext cannot load (a plugin running the hooks in OpenCode): Bun's own.
      packages.filter((p) => !p.startsWith('node:') && p !== 'bun:ffi' && p !== 'fs-ext'),
      [],
      `packages ${module} would load`,
    );
    for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `${module} reaches ${heavy}`);
    assert.ok(!files.some((f) => f.startsWith('src/server/') || f.startsWith('src/cli/')), files.join(', '));
    // dist/hook-bundle/ is one file (as an ES module, every module's imports would load with any hook): kept light.
    const declared = reach(join(SRC, module), DECLARED).packages.filter((p) => !LIGHT.includes(p));
    assert.deepEqual(declared, [], `${module} imports at its top what every edit would load`);
  }
  for (const module of modules.slice(1))
    assert.ok(
      !eagerImportsOf(ENTRY).includes(`./${module.slice('hooks/'.length).replace(/\.ts$/, '.js')}`),
      `hooks/main.ts loads ${module} with itself`,
    );
});

test('src/main.ts loads the CLI only for commands that are not hooks', () => {
  const main = readFileSync(join(SRC, 'main.ts'), 'utf8');
  assert.deepEqual(
    eagerImportsOf(join(SRC, 'main.ts')).filter((s) => !s.startsWith('node:')),
    // The build's hook and relay bundles (scripts/bundle-hooks.mjs), required only for `coord hook` and
    // `coord mcp` when they are there.
    ['./hook-bundle/main.cjs', './mcp-bundle/main.cjs'],
    'main.ts imports nothing statically but Node built-ins (node:v8 for the daemon) and the two bundles',
  );
  assert.match(main, /command === 'hook' \|\| command === 'prime'/);
});
