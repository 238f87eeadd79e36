/** A conflicting lock row as both stores read it, and the port's LockConflict made of it (SPEC rule 11, §14). */
import type { LockConflict } from '../../core/ports.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export interface ConflictRow {
  held: string;
  lock_id: string;
  holder: string;
  lease_until: number;
  worktree: string | null;
  held_since: number | null;
  task_id: string | null;
}

/** A hit as the port states it; a lock that ended from a work tree and is not swept yet is a hold already. */
export const conflictOf = (resource: string, h: ConflictRow, now: number): LockConflict => ({
  resource,
  held: h.held,
  lock_id: h.lock_id,
  holder: h.holder,
  lease_until: iso(Number(h.lease_until)),
  // Only a lock from a work tree says more (SPEC §14); others keep rule 11's shape.
  ...(h.worktree === null
    ? {}
    : {
        task_id: h.task_id,
        worktree: h.worktree,
        hold: h.held_since !== null || Number(h.lease_until) <= now,
      }),
});
