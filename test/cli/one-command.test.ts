import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMAND_MODULES, oneCommandProgram } from '../../src/cli/one-command.js';
import { buildProgram } from '../../src/cli/program.js';

// serve and mcp have their own entry points in main.ts (serve-program.ts, mcp-main.ts).
const OWN_ENTRY = new Set(['serve', 'mcp']);

test('every command of the whole program can be built alone, with the same options, by one-command.ts', async () => {
  const whole = buildProgram().commands.filter((c) => !OWN_ENTRY.has(c.name()));
  assert.deepEqual(Object.keys(COMMAND_MODULES).sort(), whole.map((c) => c.name()).sort());
  for (const cmd of whole) {
    const alone = (await oneCommandProgram(cmd.name()))?.commands.find((c) => c.name() === cmd.name());
    assert.ok(alone, cmd.name());
    assert.deepEqual(
      alone.options.map((o) => o.flags),
      cmd.options.map((o) => o.flags),
      `${cmd.name()}'s options`,
    );
  }
});

test('a name that is no command gets no one-command program (the whole program answers it)', async () => {
  assert.equal(await oneCommandProgram('lsx'), undefined);
  assert.equal(await oneCommandProgram(undefined), undefined);
  assert.equal(await oneCommandProgram('--help'), undefined);
});
