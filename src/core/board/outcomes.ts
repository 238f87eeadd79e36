/** The one place where a lost race (a value) becomes an error a caller can act on. */

import { CoordError } from '../errors.js';
import type { Lost, Outcome } from '../ports.js';
import { cycleText, firstOf } from '../shared/bounded.js';
import { blockerText } from './blockers.js';

const clock = (isoTime: string): string => isoTime.slice(11, 19);

/** A task that is not there: the one the call named, or another it named (a blocker, a parent). */
function notFound(id: string | undefined, taskId: string): CoordError {
  if (id !== undefined && id !== taskId) {
    return new CoordError(
      'not_found',
      `#${id} does not exist on this board (or is private to another agent) — check the id with ls`,
      { task_id: id },
    );
  }
  return new CoordError(
    'not_found',
    `#${taskId} does not exist (or is private to another agent) — check the id with inbox or ls`,
    { task_id: taskId },
  );
}

const notClaimableText = (t: string, lost: { state: string; for?: string | null | undefined }): string =>
  lost.state === 'queued' && lost.for
    ? `${t} is reserved for ${lost.for} — only that agent can claim it`
    : `${t} is ${lost.state} and can no longer be claimed`;

const staleClaimText = (t: string, state: string): string =>
  state === 'claimed'
    ? `the claim_id you sent is not ${t}'s current claim — it is claimed under another claim_id (check the one your claim printed; if the task was requeued and claimed again, do not submit)`
    : `the claim_id you sent is not ${t}'s current claim (${t} is ${state}: the claim lapsed or was released, or the id is mistyped) — do not submit; claim it again if it is still queued`;

export function lostToError(lost: Lost, taskId: string): CoordError {
  const t = `#${taskId}`;
  switch (lost.reason) {
    case 'not_found':
      return notFound(lost.id, taskId);
    case 'claimed':
      return new CoordError(
        'claimed',
        `${t} is held by ${lost.holder} until ${clock(lost.lease_until)} UTC — pick another task`,
        { task_id: taskId, holder: lost.holder, lease_until: lost.lease_until },
      );
    case 'not_claimable':
      return new CoordError('not_claimable', notClaimableText(t, lost), { task_id: taskId, state: lost.state });
    case 'cancelled':
      return new CoordError('cancelled', `${t} was cancelled — stop working on it`, { task_id: taskId });
    case 'expired':
      return new CoordError('expired', `${t} expired (its ttl passed) — stop working on it`, { task_id: taskId });
    case 'stale_claim':
      return new CoordError('stale_claim', staleClaimText(t, lost.state), { task_id: taskId, state: lost.state });
    case 'lease_expired':
      return new CoordError(
        'lease_expired',
        `your lease on ${t} ran out before this call — heartbeat sooner; claim it again if it is still queued`,
        { task_id: taskId, state: lost.state },
      );
    case 'not_claimed':
      return new CoordError('not_claimed', `${t} is not claimed by this claim_id (state: ${lost.state})`, {
        task_id: taskId,
        state: lost.state,
      });
    case 'result_mismatch':
      return new CoordError(
        'result_mismatch',
        `${t} was already submitted with a different result — a submitted result is never overwritten`,
        { task_id: taskId },
      );
    case 'idempotency_conflict':
      return new CoordError(
        'idempotency_conflict',
        `that idempotency_key already names task #${lost.task_id} with a different payload — use a new key for a new intent`,
        { task_id: lost.task_id },
      );
    case 'artifact_conflict':
      return new CoordError(
        'artifact_conflict',
        `artifact already exists on ${t} with other bytes (sha256 ${lost.sha256.slice(0, 12)}…) — use a new artifact_id`,
        { task_id: taskId, sha256: lost.sha256 },
      );
    case 'lock_conflict':
      return new CoordError(
        'lock_conflict',
        `${lost.conflicts.map((c) => `${c.resource} is held by ${c.holder}${c.held === c.resource ? '' : ` (as ${c.held})`} until ${clock(c.lease_until)} UTC`).join('; ')} — work on something else or ask the holder`,
        { conflicts: lost.conflicts },
      );
    case 'blocked':
      return new CoordError(
        'blocked',
        `${t} is waiting for ${lost.blocked.map(blockerText).join(', ')} — claim a ready task instead (claim without an id)`,
        { task_id: taskId, blocked: lost.blocked },
      );
    case 'dependency_cycle':
      return new CoordError(
        'dependency_cycle',
        `that edge would close a cycle: ${cycleText(lost.cycle)} waits for itself — remove an edge of the cycle instead`,
        { task_id: taskId, cycle: firstOf(lost.cycle), cycle_length: lost.cycle.length },
      );
  }
}

/** Lock operations lose for two reasons: the lock is gone (released or lapsed), or the resources are held. */
export function unwrapLock<T>(outcome: Outcome<T>, lockId: string): T {
  if (!outcome.ok && outcome.reason === 'not_found') {
    throw new CoordError(
      'not_found',
      `lock ${lockId} is not held (it was released, its lease ran out, or its claim ended) — lock the files again`,
      { lock_id: lockId },
    );
  }
  return unwrap(outcome, '');
}

/** Returns the winning value or throws the CoordError that explains the loss. */
export function unwrap<T>(outcome: Outcome<T>, taskId: string): T {
  if (outcome.ok) {
    const { ok: _ok, ...value } = outcome;
    return value as unknown as T;
  }
  throw lostToError(outcome, taskId);
}
