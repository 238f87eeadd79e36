/** The one place where a lost race (a value) becomes an error a caller can act on. */
import { blockerText } from './blockers.js';
import { cycleText, firstOf } from './bounded.js';
import { CoordError } from './errors.js';
import type { Lost, Outcome } from './ports.js';

const clock = (isoTime: string): string => isoTime.slice(11, 19);

/** Each lost race as the error that tells the caller what happened and what to do next. */
const EXPLAIN: { [R in Lost['reason']]: (lost: Lost & { reason: R }, taskId: string, t: string) => CoordError } = {
  not_found: (lost, taskId, t) => {
    if (lost.id !== undefined && lost.id !== taskId) {
      return new CoordError(
        'not_found',
        `#${lost.id} does not exist on this board (or is private to another agent) — check the id with ls`,
        { task_id: lost.id },
      );
    }
    return new CoordError(
      'not_found',
      `${t} does not exist (or is private to another agent) — check the id with inbox or ls`,
      { task_id: taskId },
    );
  },
  claimed: (lost, taskId, t) =>
    new CoordError(
      'claimed',
      `${t} is held by ${lost.holder} until ${clock(lost.lease_until)} UTC — pick another task`,
      { task_id: taskId, holder: lost.holder, lease_until: lost.lease_until },
    ),
  not_claimable: (lost, taskId, t) =>
    new CoordError(
      'not_claimable',
      lost.state === 'queued' && lost.for
        ? `${t} is reserved for ${lost.for} — only that agent can claim it`
        : `${t} is ${lost.state} and can no longer be claimed`,
      { task_id: taskId, state: lost.state },
    ),
  cancelled: (_lost, taskId, t) =>
    new CoordError('cancelled', `${t} was cancelled — stop working on it`, { task_id: taskId }),
  expired: (_lost, taskId, t) =>
    new CoordError('expired', `${t} expired (its ttl passed) — stop working on it`, { task_id: taskId }),
  stale_claim: (lost, taskId, t) =>
    new CoordError(
      'stale_claim',
      lost.state === 'claimed'
        ? `the claim_id you sent is not ${t}'s current claim — it is claimed under another claim_id (check the one your claim printed; if the task was requeued and claimed again, do not submit)`
        : `the claim_id you sent is not ${t}'s current claim (${t} is ${lost.state}: the claim lapsed or was released, or the id is mistyped) — do not submit; claim it again if it is still queued`,
      { task_id: taskId, state: lost.state },
    ),
  lease_expired: (lost, taskId, t) =>
    new CoordError(
      'lease_expired',
      `your lease on ${t} ran out before this call — heartbeat sooner; claim it again if it is still queued`,
      { task_id: taskId, state: lost.state },
    ),
  not_claimed: (lost, taskId, t) =>
    new CoordError('not_claimed', `${t} is not claimed by this claim_id (state: ${lost.state})`, {
      task_id: taskId,
      state: lost.state,
    }),
  result_mismatch: (_lost, taskId, t) =>
    new CoordError(
      'result_mismatch',
      `${t} was already submitted with a different result — a submitted result is never overwritten`,
      { task_id: taskId },
    ),
  idempotency_conflict: (lost) =>
    new CoordError(
      'idempotency_conflict',
      `that idempotency_key already names task #${lost.task_id} with a different payload — use a new key for a new intent`,
      { task_id: lost.task_id },
    ),
  artifact_conflict: (lost, taskId, t) =>
    new CoordError(
      'artifact_conflict',
      `artifact already exists on ${t} with other bytes (sha256 ${lost.sha256.slice(0, 12)}…) — use a new artifact_id`,
      { task_id: taskId, sha256: lost.sha256 },
    ),
  lock_conflict: (lost) =>
    new CoordError(
      'lock_conflict',
      `${lost.conflicts.map((c) => `${c.resource} is held by ${c.holder}${c.held === c.resource ? '' : ` (as ${c.held})`} until ${clock(c.lease_until)} UTC`).join('; ')} — work on something else or ask the holder`,
      { conflicts: lost.conflicts },
    ),
  blocked: (lost, taskId, t) =>
    new CoordError(
      'blocked',
      `${t} is waiting for ${lost.blocked.map(blockerText).join(', ')} — claim a ready task instead (claim without an id)`,
      { task_id: taskId, blocked: lost.blocked },
    ),
  dependency_cycle: (lost, taskId) =>
    new CoordError(
      'dependency_cycle',
      `that edge would close a cycle: ${cycleText(lost.cycle)} waits for itself — remove an edge of the cycle instead`,
      { task_id: taskId, cycle: firstOf(lost.cycle), cycle_length: lost.cycle.length },
    ),
};

export function lostToError(lost: Lost, taskId: string): CoordError {
  const explain = EXPLAIN[lost.reason] as (lost: Lost, taskId: string, t: string) => CoordError;
  return explain(lost, taskId, `#${taskId}`);
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
