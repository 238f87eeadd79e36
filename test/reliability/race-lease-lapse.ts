/**
 * Scenario 1: A holds a claim; at the lease boundary A submits (or heartbeats)
 * while B asks for the next task (lazy expiry + requeue + claim). At most one
 * of them may win: A's call ok ⇒ B got nothing and the task is A's (completed
 * with A's result, or still A's claim); B claimed ⇒ A was refused and A's
 * result is nowhere.
 */
import assert from 'node:assert/strict';
import { operations as op } from '../../src/core/operations.js';
import { A, type Arena, B, calls, claimedByA, grantOf, race, show, type Tally, tickTo } from './race-arena.js';

/** Where the clock stands while they race: fixed just before / at / after lease_until, or moving onto it mid-race. */
export type Boundary = 'before' | 'at' | 'after' | 'tick';
const BOUNDARIES: Boundary[] = ['tick', 'tick', 'tick', 'before', 'at', 'after'];

export async function leaseLapseRound(arena: Arena, i: number, tally: Tally, missed: Tally): Promise<void> {
  const board = `lapse-${i}`;
  const boundary = BOUNDARIES[i % BOUNDARIES.length]!;
  const a = Math.floor(i / BOUNDARIES.length) % 2 === 0 ? 'submit' : 'heartbeat';
  const { task_id, grant, lease_until: L } = await claimedByA(arena, board, { lease_s: 1 });
  const result = { by: A, round: i };
  arena.clock.set({ before: L - 1, at: L, after: L + 1, tick: L - 1 }[boundary]);

  const [byA, byB] = await race(
    arena,
    calls(
      arena,
      a === 'submit'
        ? { op: 'submitResult', input: { task_id, claim_id: grant.claim_id, status: 'completed', result } }
        : { op: 'heartbeat', input: { task_id, claim_id: grant.claim_id } },
      { op: 'claimNext', input: { agent: B, board, lease_s: 1 } },
    ),
    boundary === 'tick' ? tickTo(arena, L) : undefined,
  );
  const won = grantOf(byB);
  const task = await show(arena, task_id);
  const where = `round ${i} (${arena.name}, ${a} at ${boundary}): A ${JSON.stringify(byA)}, B ${won ? 'claimed' : 'nothing'}`;

  if (byA.ok) {
    assert.equal(won, null, `both won: ${where}`);
    assert.notEqual(boundary, 'at', `a call at lease_until must be refused: ${where}`);
    assert.notEqual(boundary, 'after', where);
    if (a === 'submit') {
      assert.equal(task.state, 'completed', where);
      assert.deepEqual(task.result, result, where);
    } else {
      assert.equal(task.state, 'claimed', where);
      assert.equal(task.claimed_by, A, where);
      // A's claim is intact: its submit is accepted.
      await arena.call(op.submitResult, { task_id, claim_id: grant.claim_id, status: 'completed', result });
    }
    assert.equal(task.attempts, 1, where);
    tally.add(`${boundary}: A won (${a})`);
    return;
  }
  assert.ok(['lease_expired', 'stale_claim'].includes(byA.code), where);
  assert.notEqual(boundary, 'before', `a live lease was refused: ${where}`);
  assert.equal(task.result, null, `A's refused result is nowhere: ${where}`);
  if (won) {
    assert.equal(won.task.id, task_id, where);
    assert.equal(won.fence, 2, where);
    assert.equal(task.state, 'claimed', where);
    assert.equal(task.claimed_by, B, where);
    assert.equal(task.attempts, 2, where);
    const done = await arena.call(op.submitResult, { task_id, claim_id: won.claim_id, status: 'completed', result: B });
    assert.equal(done.replayed, false);
    tally.add(`${boundary}: B claimed, A ${byA.code}`);
    return;
  }
  // Nobody won: A lapsed, and B looked before the requeue at a time when nothing was due yet
  // — or (a fixed clock past lease_until) B missed a task that was claimable the whole time.
  assert.equal(task.state, 'queued', where);
  assert.equal(task.attempts, 1, where);
  if (boundary === 'at' || boundary === 'after') missed.add(`${boundary}`);
  tally.add(`${boundary}: neither (requeued), A ${byA.code}`);
  await arena.call(op.cancelTask, { task_id, agent: B });
}
