/**
 * SPEC §14: a lock that becomes a change hold is owned by its work tree "and by the task, if the agent held
 * one". A plain lock (lock_files, an edit's auto-lock) names no task; when it ends with its session, the task
 * is the one that session's agent had claimed — in the lock's work tree, else its only claim there.
 */
export interface SessionClaim {
  id: string;
  claimed_by: string | null;
  claim_worktree: string | null;
}

export function heldTask(lock: { agent: string; worktree: string | null }, claims: SessionClaim[]): string | null {
  if (lock.worktree === null) return null;
  const mine = claims.filter((c) => c.claimed_by === lock.agent);
  const here = mine.filter((c) => c.claim_worktree === lock.worktree);
  const one = here.length === 1 ? here[0] : mine.length === 1 ? mine[0] : undefined;
  return one?.id ?? null;
}
