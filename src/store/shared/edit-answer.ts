/** A decision plan (core/edits/edit-decision.ts) as the store answers it when nothing was written. */
import type { EditPlan } from '../../core/edits/edit-decision.js';
import type { EditDecision } from '../../core/ports.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

export function answerOf(plan: EditPlan): EditDecision {
  if (plan.decision === 'deny') {
    return {
      decision: 'deny',
      conflicts: plan.conflicts.map((c) => ({
        resource: c.resource,
        held: c.held,
        holder: c.holder,
        lock_id: c.lock_id,
        lease_until: iso(c.lease_until),
        task_id: c.task_id,
        // SPEC §14: a work tree's lock or hold says which.
        ...(c.worktree === undefined ? {} : { worktree: c.worktree, hold: c.hold ?? false }),
      })),
    };
  }
  return { decision: 'allow', lock: null, renewed: [], lease_until: iso(plan.lease_until) };
}
