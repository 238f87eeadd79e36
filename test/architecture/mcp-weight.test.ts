/**
 * An agent waits for `coord mcp` to answer initialize (docs/startup.md): what its fast path (cli/mcp-main.ts)
 * reaches through static imports is Node built-ins, fs-ext (the flock addon) and light coord files — never
 * commander (only --help and usage errors load it, dynamically), zod, the route table, the operations, the
 * server or the stores. test/mcp/mcp-start.test.ts checks the same at run time.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { HEAVY, reach, SRC } from './reach.js';

test('coord mcp reaches only Node built-ins, fs-ext and light coord files: no commander, zod, routes or server', () => {
  const { files, packages } = reach(join(SRC, 'cli/mcp-main.ts'));
  assert.ok(files.includes('src/client/mcp-relay.ts'), 'the relay is reached');
  assert.deepEqual(
    // bun:ffi only under Bun, where fs-ext cannot load (a plugin running the hooks in OpenCode): Bun's own.
    packages.filter((p) => !p.startsWith('node:') && p !== 'bun:ffi'),
    ['fs-ext'],
    'packages coord mcp would load',
  );
  for (const heavy of HEAVY) assert.ok(!files.includes(heavy), `coord mcp reaches ${heavy}`);
  assert.deepEqual(
    // api/paths.ts is the contract's URLs as strings, with no import of its own.
    files.filter((f) => /^src\/(server|store|api)\/|^src\/core\/ops\//.test(f) && f !== 'src/api/paths.ts'),
    [],
  );
});
