/**
 * Pure rules of SPEC §2–§3 that every store shares. Stores do the winning
 * write as one conditional statement; only when it affected no row do they
 * re-read the row (inside the same transaction) and ask these functions why
 * the caller lost. Nothing here reads-then-writes.
 */
import type { TaskState } from '../model.js';
import type { Lost } from '../ports.js';

/** The fields of a stored task the rules look at. Times in ms. */
export interface TaskFacts {
  state: TaskState;
  for: string | null;
  created_by: string;
  /** Who last handed it over (release with `to`): it still sees the task. */
  handed_by?: string | null;
  claimed_by: string | null;
  claim_id: string | null;
  lease_until_ms: number | null;
  expires_at_ms: number;
  attempts: number;
  /** How the claim named by claim_id ended; null while it is live. */
  claim_end: ClaimEnd | null;
  /** Blockers not completed yet (SPEC §11); a queued task with any is not ready. */
  blockers_open: number;
}

export type ClaimEnd = 'lapsed' | 'released' | 'submitted' | 'cancelled' | 'expired' | 'session_ended';

/**
 * SPEC rule 4, with one documented widening: a private task is visible to its
 * target and to its author (who must be able to see and cancel what they
 * posted). Everyone else gets `not_found`. No agent means the operator view.
 */
export const visibleTo = (t: Pick<TaskFacts, 'for' | 'created_by' | 'handed_by'>, agent: string | undefined): boolean =>
  agent === undefined || t.for === null || t.for === agent || t.created_by === agent || t.handed_by === agent;

/** Only the target of a private task may claim it. */
export const claimableBy = (t: Pick<TaskFacts, 'for'>, agent: string): boolean => t.for === null || t.for === agent;

export const leaseLive = (t: Pick<TaskFacts, 'lease_until_ms'>, now: number): boolean =>
  t.lease_until_ms !== null && t.lease_until_ms > now;

/** Why a claim by id did not win; `reclaim` when the caller already holds the live claim (rule 2). */
export function explainClaimLoss(t: TaskFacts | null, agent: string, now: number): Lost | { ok: true; reclaim: true } {
  if (t === null || !visibleTo(t, agent)) return { ok: false, reason: 'not_found' };
  switch (t.state) {
    case 'claimed':
      if (t.claimed_by === agent && leaseLive(t, now)) return { ok: true, reclaim: true };
      return explainNotQueued(t, now);
    case 'queued':
      if (t.expires_at_ms <= now) return { ok: false, reason: 'expired' };
      // The store lists the open blockers with their states.
      if (t.blockers_open > 0 && claimableBy(t, agent)) return { ok: false, reason: 'blocked', blocked: [] };
      return { ok: false, reason: 'not_claimable', state: t.state, for: t.for };
    default:
      return explainNotQueued(t, now);
  }
}

/**
 * Why a fenced operation (heartbeat, release, submit, artifact) was refused
 * (rule 5). Only the last claim's ending is remembered on the row; any older
 * claim_id is simply stale.
 */
export function explainFenceLoss(t: TaskFacts | null, claimId: string, now: number): Lost {
  if (t === null) return { ok: false, reason: 'not_found' };
  if (t.state === 'cancelled' || t.state === 'expired') return { ok: false, reason: t.state };
  if (t.claim_id !== claimId) {
    return { ok: false, reason: t.attempts > 0 ? 'stale_claim' : 'not_claimed', state: t.state };
  }
  if (t.state === 'claimed' && !leaseLive(t, now)) return { ok: false, reason: 'lease_expired', state: t.state };
  if (t.claim_end === 'lapsed') return { ok: false, reason: 'lease_expired', state: t.state };
  // The claim finished its work: nothing is claimed by it any more.
  if (t.claim_end === 'submitted') return { ok: false, reason: 'not_claimed', state: t.state };
  // Released, handed off or ended with its session: the task was requeued.
  return { ok: false, reason: 'stale_claim', state: t.state };
}

/**
 * Submit replay (rule 6): the claim that finished the task may submit again;
 * the same result hash answers as before, another one never overwrites.
 */
export function explainSubmitLoss(
  t: (TaskFacts & { result_hash: string | null }) | null,
  claimId: string,
  resultHash: string,
  now: number,
): Lost | { ok: true; replayed: true } {
  if (t !== null && (t.state === 'completed' || t.state === 'failed') && t.claim_id === claimId) {
    return t.result_hash === resultHash ? { ok: true, replayed: true } : { ok: false, reason: 'result_mismatch' };
  }
  return explainFenceLoss(t, claimId, now);
}

/**
 * Why blockers cannot be added to a task that is not queued (SPEC §11): a
 * claimed task is being worked on (its holder is named), a finished one is done.
 */
export function explainNotQueued(t: TaskFacts, now: number): Lost {
  switch (t.state) {
    case 'claimed':
      return {
        ok: false,
        reason: 'claimed',
        holder: t.claimed_by ?? 'unknown',
        lease_until: new Date(t.lease_until_ms ?? now).toISOString(),
      };
    case 'cancelled':
    case 'expired':
      return { ok: false, reason: t.state };
    default:
      return { ok: false, reason: 'not_claimable', state: t.state };
  }
}
