/**
 * A conflicting lock row as both stores read it, the Overlap the edit decision weighs and the port's
 * LockConflict made of it (SPEC rule 11, §14).
 */
import type { Overlap } from '../../core/edits/edit-decision.js';
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
  /** A plain lock (no claim, no hold): SQLite answers 0/1, PostgreSQL a boolean. */
  plain?: boolean | number;
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

/** The hits of one requested key as the edit decision weighs them. */
export const overlapsOf = (resource: string, hits: ConflictRow[], now: number): Overlap[] =>
  hits.map((h) => {
    const c = conflictOf(resource, h, now);
    return {
      resource,
      held: h.held,
      lock_id: h.lock_id,
      holder: h.holder,
      lease_until: Number(h.lease_until),
      task_id: h.task_id,
      plain: h.plain === true || h.plain === 1,
      ...(c.worktree === undefined ? {} : { worktree: c.worktree, hold: c.hold ?? false }),
    };
  });

/** The overlaps as a lock_conflict lists them (a work tree's lock or hold says which, SPEC §14). */
export const conflictsOf = (overlaps: Overlap[]): LockConflict[] =>
  overlaps.map((o) => ({
    resource: o.resource,
    held: o.held,
    lock_id: o.lock_id,
    holder: o.holder,
    lease_until: iso(o.lease_until),
    ...(o.worktree === undefined ? {} : { task_id: o.task_id, worktree: o.worktree, hold: o.hold ?? false }),
  }));
