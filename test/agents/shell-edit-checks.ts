/** What a real-client shell-edit test checks once the session ended (SPEC §10 shell edits). */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { FakeModel } from './fake-model.js';

/** `coord who --json`, as the test read it during the session. */
export interface Who {
  agents: { name: string; locks: string[] }[];
}

/**
 * The command changed src/a.ts, which alice holds, and src/b.ts, which was free: the model was told
 * lock_conflict with the restore hint, and src/b.ts is locked by one agent that is not alice. `shown`: what
 * the diagnostic shows when the model was not told (default: the end of what it was sent).
 */
export function assertShellEditTold(
  t: TestContext,
  client: string,
  fake: FakeModel,
  who: Who,
  shown?: (told: string) => string,
): void {
  const told = JSON.stringify(fake.turns().map((x) => x.body));
  const m =
    /lock_conflict: your command changed src\/a\.ts, which alice holds — restore it \(git restore src\/a\.ts\)/.exec(
      told,
    );
  t.diagnostic(`${client}: ${m ? m[0] : (shown ?? ((s) => s.slice(-2000)))(told)}`);
  assert.ok(m, `the model was told: ${told.slice(-3000)}`);
  const holders = who.agents.filter((a) => a.locks.includes('src/b.ts')).map((a) => a.name);
  assert.equal(holders.length, 1, JSON.stringify(who));
  assert.notEqual(holders[0], 'alice');
}
