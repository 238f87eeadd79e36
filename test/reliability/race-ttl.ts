/**
 * Scenario 3: A submits at the instant the task's ttl runs out, while B reads
 * (show or inbox — a read moves due rows first) or the daemon's background
 * sweep runs. The task ends completed or expired, never both, and is never
 * requeued — also when the lease lapses at that same instant.
 */
import assert from 'node:assert/strict';
import type { Task } from '../../src/core/model.js';
import type { InboxOutput } from '../../src/core/output-schemas.js';
import { A, type Arena, B, calls, claimedByA, race, show, type Tally, tickTo } from './race-arena.js';
import type { RaceCall } from './race-racers.js';

const BOUNDARIES = ['tick', 'tick', 'before', 'at'] as const;
const READS = ['show', 'inbox', 'sweep'] as const;
const READ_CALLS: Record<(typeof READS)[number], (task_id: string, board: string) => Omit<RaceCall, 'spin_us'>> = {
  show: (task_id) => ({ op: 'showTask', input: { task_id, agent: B } }),
  inbox: (_, board) => ({ op: 'inbox', input: { agent: B, board } }),
  sweep: () => ({ op: 'sweep', input: null }),
};

/** Ids of every task of this scenario: the event-log check proves none was ever requeued. */
export const ttlTasks = new Set<string>();

export async function ttlRound(arena: Arena, i: number, tally: Tally): Promise<void> {
  const board = `ttl-${i}`;
  const boundary = BOUNDARIES[i % BOUNDARIES.length]!;
  // Every other cycle of boundaries: the lease ends exactly when the ttl does (claimed 1 s after posting, for 1 s).
  const sameInstant = Math.floor(i / BOUNDARIES.length) % 2 === 1;
  const {
    task_id,
    grant,
    expires_at: E,
    lease_until: L,
  } = await claimedByA(
    arena,
    board,
    sameInstant ? { ttl_s: 2, lease_s: 1, claim_after_ms: 1_000 } : { ttl_s: 2, lease_s: 5 },
  );
  ttlTasks.add(task_id);
  assert.equal(L === E, sameInstant);
  const result = { by: A, round: i };
  arena.clock.set(boundary === 'at' ? E : E - 1);
  const read = READS[Math.floor(i / (2 * BOUNDARIES.length)) % READS.length]!;

  const [byA, byB] = await race(
    arena,
    calls(
      arena,
      { op: 'submitResult', input: { task_id, claim_id: grant.claim_id, status: 'completed', result } },
      READ_CALLS[read](task_id, board),
    ),
    boundary === 'tick' ? tickTo(arena, E) : undefined,
  );
  arena.clock.set(E);
  const task = await show(arena, task_id);
  const where = `round ${i} (${arena.name}, ${boundary}${sameInstant ? ', lease ends too' : ''}): A ${JSON.stringify(byA)}, B ${JSON.stringify(byB)}`;

  assert.ok(byB.ok, where);
  // What B's read saw (or, for the sweep, 'expired' when it moved the task).
  let seen: string | undefined;
  if (read === 'show') seen = (byB.value as { task: Task }).task.state;
  else if (read === 'sweep') seen = byB.value === 0 ? undefined : 'expired';
  else {
    const view = byB.value as InboxOutput;
    assert.deepEqual(view.claims, [], where);
    assert.ok(!view.tasks.some((t) => t.id === task_id), `the task showed up as claimable: ${where}`);
  }
  if (byA.ok) {
    assert.notEqual(boundary, 'at', `a submit at expires_at must be refused: ${where}`);
    assert.equal(task.state, 'completed', where);
    assert.deepEqual(task.result, result, where);
    assert.ok(seen === undefined || seen === 'claimed' || seen === 'completed', where);
    tally.add(`${boundary}${sameInstant ? ' (lease ends too)' : ''}: completed`);
    return;
  }
  assert.equal(byA.code, 'expired', where);
  assert.notEqual(boundary, 'before', where);
  assert.equal(task.state, 'expired', where);
  assert.equal(task.result, null, where);
  assert.equal(task.attempts, 1, where);
  assert.ok(seen === undefined || seen === 'claimed' || seen === 'expired', where);
  tally.add(`${boundary}${sameInstant ? ' (lease ends too)' : ''}: expired`);
}
