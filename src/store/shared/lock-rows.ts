/** A lock row as both stores read it, the Lock of the port made of it, and the rules of writing one (SPEC rule 11, §14). */

import { overlaps } from '../../core/edits/paths.js';
import type { Lock } from '../../core/model.js';
import type { AcquireLocksCommand, Outcome } from '../../core/ports.js';
import type { NewEvent } from './new-event.js';
import { lockHeld, lockReleased } from './task-events.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** Far in the future: a hold's lease never lapses, and the lapsed-lock probe's index range never meets it. */
export const HOLD_LEASE = 8_640_000_000_000_000;

export interface LockRow {
  lock_id: string;
  board: string;
  agent: string;
  lease_until: number;
  task_id: string | null;
  created_at: number;
  worktree: string | null;
  held_since: number | null;
  hold_task?: string | null;
}

/** The claim a lock is bound to (a claim with files), or none for a plain lock. */
export type LockBound = { task_id: string; claim_id: string; lease_until: number } | null;

/** A live lock as the port answers it. */
export const lockOf = (r: LockRow, resources: string[]): Lock => ({
  lock_id: r.lock_id,
  board: r.board,
  agent: r.agent,
  resources,
  lease_until: iso(Number(r.lease_until)),
  task_id: r.task_id,
  created_at: iso(Number(r.created_at)),
  worktree: r.worktree,
  hold: r.held_since === null ? null : { since: iso(Number(r.held_since)) },
});

/** The values of a new lock's row: its lease is its claim's, or its own from now. */
export const lockValues = (cmd: AcquireLocksCommand, bound: LockBound, now: number) => ({
  ...cmd,
  lease_until: bound?.lease_until ?? now + cmd.lease_ms,
  task_id: bound?.task_id ?? null,
  claim_id: bound?.claim_id ?? null,
  now,
});

/** A renewed lease, or the lease of the claim a lock follows (heartbeat extends both), or not_found. */
export const renewed = (own: number | undefined, bound: Lock | undefined): Outcome<{ lease_until: string }> =>
  own !== undefined
    ? { ok: true, lease_until: iso(Number(own)) }
    : bound
      ? { ok: true, lease_until: bound.lease_until }
      : { ok: false, reason: 'not_found' };

/** Whether a lock's keys meet a change's paths (SPEC §14: such locks become holds at a submit). */
export const touches = (resources: string[], paths: string[]): boolean =>
  resources.some((r) => paths.some((p) => overlaps(r, p)));

/** A deleted lock's event: a hold names the task it held for. */
export const releasedEvent = (row: LockRow, resources: string[], reason: string): NewEvent =>
  lockReleased({ ...row, task_id: row.task_id ?? row.hold_task ?? null }, resources, reason);

/** A lock that became a change hold: its event names the task it holds for. */
export const heldEvent = (row: LockRow, resources: string[], why: string): NewEvent =>
  lockHeld({ ...row, task_id: row.hold_task ?? null }, resources, why);

/** The lapse reason of an ended lock waiting for git. */
export const endedFor = (r: { ended_for: string | null }): string => r.ended_for ?? 'lease_lapsed';
