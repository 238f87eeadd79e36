/**
 * Scenario 4: A's lease has run out (not yet moved: nobody wrote since). First
 * A's stale call races B's claim-next; then, B holding the new claim, A's stale
 * call races B's own heartbeat or submit. Every call of A's — heartbeat,
 * release, submit, artifact upload — is refused, and B's claim (claim_id,
 * lease, row) is untouched.
 */
import assert from 'node:assert/strict';
import type { ClaimGrant } from '../../src/core/model.js';
import { operations as op } from '../../src/core/operations.js';
import { A, type Arena, B, calls, claimedByA, grantOf, race, show, type Tally } from './race-arena.js';
import type { RaceCall } from './race-racers.js';

const STALE_CALLS = ['heartbeat', 'releaseTask', 'submitResult', 'putArtifact'] as const;

function staleCall(kind: (typeof STALE_CALLS)[number], task_id: string, claim_id: string, i: number) {
  const input = { task_id, claim_id };
  switch (kind) {
    case 'heartbeat':
      return { op: kind, input: { ...input, lease_s: 30 } } satisfies Omit<RaceCall, 'spin_us'>;
    case 'releaseTask':
      return { op: kind, input };
    case 'submitResult':
      return { op: kind, input: { ...input, status: 'completed', result: { by: A, round: i } } };
    case 'putArtifact':
      return { op: kind, input: { ...input, artifact_id: 'from-a', bytes: new TextEncoder().encode(`A ${i}`) } };
  }
}

export async function staleClaimRound(arena: Arena, i: number, tally: Tally, missed: Tally): Promise<void> {
  const board = `stale-${i}`;
  const kind = STALE_CALLS[i % STALE_CALLS.length]!;
  const { task_id, grant, lease_until: L } = await claimedByA(arena, board, { lease_s: 1 });
  arena.clock.set(L + [0, 1, 250][i % 3]!);
  const stale = staleCall(kind, task_id, grant.claim_id, i);
  const where = (what: string) => `round ${i} (${arena.name}, stale ${kind}): ${what}`;

  // Round 1: A's stale call against B's claim-next, the lapse not yet moved by anyone.
  const [first, next] = await race(arena, calls(arena, stale, { op: 'claimNext', input: { agent: B, board } }));
  assert.ok(!first.ok, where(`A's call after its lease passed succeeded: ${JSON.stringify(first)}`));
  assert.ok(['lease_expired', 'stale_claim'].includes(first.code), where(first.code));
  let b: ClaimGrant | null = grantOf(next);
  if (!b) {
    // B looked in the instant between A's requeue and its own due probe (see the report); claim again.
    missed.add(kind);
    b = await arena.call(op.claimNext, { agent: B, board });
  }
  assert.ok(b, where('nothing to claim after the lapse'));
  assert.equal(b.task.id, task_id);
  assert.equal(b.fence, 2);

  // Round 2: A's stale call against B's heartbeat or submit on the claim B now holds.
  const bSubmits = Math.floor(i / STALE_CALLS.length) % 2 === 1;
  const [second, mine] = await race(
    arena,
    calls(
      arena,
      stale,
      bSubmits
        ? { op: 'submitResult', input: { task_id, claim_id: b.claim_id, status: 'completed', result: B } }
        : { op: 'heartbeat', input: { task_id, claim_id: b.claim_id, lease_s: 2 } },
    ),
  );
  assert.ok(!second.ok, where(`A's stale call succeeded against B's claim: ${JSON.stringify(second)}`));
  assert.equal(second.code, 'stale_claim', where(second.code));
  assert.ok(mine.ok, where(`B's own call was refused: ${JSON.stringify(mine)}`));

  const task = await show(arena, task_id);
  assert.equal(task.claimed_by, B, where('holder'));
  assert.equal(task.attempts, 2, where('attempts'));
  assert.equal(await arena.refused(op.getArtifact, { task_id, artifact_id: 'from-a' }), 'not_found');
  if (bSubmits) {
    assert.equal(task.state, 'completed', where('state'));
    assert.equal(task.result, B, where('result'));
  } else {
    assert.equal(task.state, 'claimed', where('state'));
    assert.equal(task.lease_until, (mine.value as { lease_until: string }).lease_until, where('lease'));
    // B's claim_id is still the current one: B can finish.
    await arena.call(op.submitResult, { task_id, claim_id: b.claim_id, status: 'completed', result: B });
  }
  tally.add(`${kind} refused`);
}
