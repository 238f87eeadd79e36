/** SPEC §18's rules, pure: what --agents asks for, a task's branch, what follows an exit, a limit, a budget. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  afterExit,
  branchOf,
  budgetSpent,
  launchName,
  limitDecision,
  parseAgentsSpec,
  sumUsage,
} from '../../src/core/runs/supervision.js';

test('--agents reads CLIENT:N pairs, a client named alone gets one slot, and anything else is refused', () => {
  assert.deepEqual(parseAgentsSpec('claude:2,codex:1,gemini'), [
    { client: 'claude', slots: 2 },
    { client: 'codex', slots: 1 },
    { client: 'gemini', slots: 1 },
  ]);
  assert.deepEqual(parseAgentsSpec('claude:1,claude:2'), [{ client: 'claude', slots: 3 }]);
  for (const bad of ['', 'claude:0', 'claude:x', 'Claude:1', 'claude:2:3'])
    assert.throws(() => parseAgentsSpec(bad), /--agents/, bad);
});

test("a launch's agent is the client's name and a short suffix; its branch is coord/<id>-<slug of the title>", () => {
  assert.match(launchName('claude'), /^claude#[0-9a-f]{4}$/);
  assert.equal(
    branchOf({ id: 'k3m9x2qa', title: 'Fix the Login bug (again)!' }),
    'coord/k3m9x2qa-fix-the-login-bug-again',
  );
  assert.equal(branchOf({ id: 'a', title: '***' }), 'coord/a-task');
});

test('an exit without a submit is tried again with a growing backoff up to --retries, then fails; a submit is done', () => {
  const f = { submitted: false, retries: 2, ranMs: 60_000, baseBackoffMs: 1000 };
  assert.deepEqual(afterExit({ ...f, submitted: true, tries: 1 }), { kind: 'done' });
  assert.deepEqual(afterExit({ ...f, tries: 1 }), { kind: 'retry', delayMs: 1000 });
  assert.deepEqual(afterExit({ ...f, tries: 2 }), { kind: 'retry', delayMs: 2000 });
  assert.deepEqual(afterExit({ ...f, tries: 3 }), { kind: 'fail' });
  // A crash at start waits longer: a client that cannot start is not restarted in a tight loop.
  assert.deepEqual(afterExit({ ...f, tries: 1, ranMs: 100 }), { kind: 'retry', delayMs: 2000 });
  assert.deepEqual(afterExit({ ...f, retries: 0, tries: 1 }), { kind: 'fail' });
});

test('a usage limit pauses only when its reset is at least --pause-after away', () => {
  assert.deepEqual(limitDecision(59_000, 60, 1000), { pause: false });
  assert.deepEqual(limitDecision(60_000, 60, 1000), { pause: true, until: 61_000 });
  assert.deepEqual(limitDecision(Number.NaN, 60, 1000), { pause: false });
});

test('a budget is spent once the summed usage reaches it; no budget is never spent', () => {
  const spent = sumUsage([
    { input_tokens: 10, output_tokens: 5, wall_s: 1, cost_usd: 0.01 },
    null,
    { input_tokens: 20, output_tokens: 5, wall_s: 1 },
  ]);
  assert.deepEqual(spent, { tokens: 40, usd: 0.01 });
  assert.equal(budgetSpent(spent, {}), null);
  assert.equal(budgetSpent(spent, { tokens: 41 }), null);
  assert.match(budgetSpent(spent, { tokens: 40 }) ?? '', /--budget-tokens 40 spent/);
  assert.match(budgetSpent(spent, { usd: 0.01 }) ?? '', /--budget-usd/);
});
