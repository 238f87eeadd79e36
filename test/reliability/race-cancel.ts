/**
 * Scenario 2: A submits while someone cancels the same task. Exactly one of
 * them wins: a cancelled task never completes, a completed (or failed) task
 * never becomes cancelled. Mostly with a live lease (the order alone decides),
 * sometimes with the lease running out mid-race.
 */
import assert from 'node:assert/strict';
import { A, type Arena, B, calls, claimedByA, race, show, type Tally, tickTo } from './race-arena.js';

export async function cancelRound(arena: Arena, i: number, tally: Tally): Promise<void> {
  const board = `cancel-${i}`;
  const lapsing = i % 5 === 4;
  const status = i % 2 === 0 ? 'completed' : 'failed';
  const { task_id, grant, lease_until: L } = await claimedByA(arena, board, { lease_s: 1 });
  const result = { by: A, round: i };
  arena.clock.set(lapsing ? L - 1 : L - 500);

  const [byA, byB] = await race(
    arena,
    calls(
      arena,
      { op: 'submitResult', input: { task_id, claim_id: grant.claim_id, status, result } },
      { op: 'cancelTask', input: { task_id, agent: B, reason: `round ${i}` } },
    ),
    lapsing ? tickTo(arena, L) : undefined,
  );
  const task = await show(arena, task_id);
  const where = `round ${i} (${arena.name}${lapsing ? ', lease lapsing' : ''}): A ${JSON.stringify(byA)}, B ${JSON.stringify(byB)}`;

  assert.notEqual(byA.ok, byB.ok, `exactly one of submit and cancel wins: ${where}`);
  if (byA.ok) {
    assert.equal(byB.ok ? '' : byB.code, 'not_claimable', where);
    assert.equal(task.state, status, where);
    assert.equal(task.result_status, status, where);
    assert.deepEqual(task.result, result, where);
    tally.add(`${lapsing ? 'lapsing' : 'live'}: A ${status}`);
    return;
  }
  assert.ok(byA.code === 'cancelled' || (lapsing && byA.code === 'lease_expired'), where);
  assert.equal(task.state, 'cancelled', where);
  assert.equal(task.result, null, where);
  assert.equal(task.result_status, null, where);
  tally.add(`${lapsing ? 'lapsing' : 'live'}: B cancelled, A ${byA.code}`);
}
