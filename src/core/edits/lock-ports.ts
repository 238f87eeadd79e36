/**
 * The store port of locks and edit decisions (SPEC rule 10–13, §10), part of `Store`. Each method is one
 * transaction; a lost race comes back as a value.
 */
import type { Lock } from '../model.js';
import type { Outcome } from '../ports.js';

/** One requested resource that overlaps a live lock of someone else (or another lock of the caller). */
export interface LockConflict {
  /** The key that was asked for. */
  resource: string;
  /** The held key it overlaps: the same key, a directory containing it, or a key inside it. */
  held: string;
  holder: string;
  lock_id: string;
  lease_until: string;
  /** The task the lock or hold belongs to, if any. */
  task_id?: string | null;
  /** SPEC §14: the holder's work tree, when known. */
  worktree?: string | null;
  /** SPEC §14: a change hold (the lock ended while its paths were pending in `worktree`). */
  hold?: boolean;
}

export interface AcquireLocksCommand {
  /** Minted by core. */
  lock_id: string;
  board: string;
  agent: string;
  /** Canonical keys (core/edits/paths.ts), deduplicated and sorted: the acquisition order (rule 11). */
  resources: string[];
  lease_ms: number;
  /** The MCP session (or other owner) whose end frees this lock at once (rule 13). */
  session_id: string | null;
  /**
   * SPEC §14: the work tree the agent works in. When such a lock ends, its keys still pending there become a
   * change hold (the store keeps it ended until core has asked git: endedLocks, trimHolds), and holds of
   * this same work tree never conflict with it.
   */
  worktree: string | null;
}

/**
 * SPEC §10: may this agent edit these keys? Allow takes (or renews) its auto-lock, deny names each overlap;
 * one transaction in the store (edit-decision.ts decides, inside it).
 */
export interface DecideEditCommand {
  board: string;
  agent: string;
  /** Canonical keys (core/edits/paths.ts), deduplicated and sorted. */
  resources: string[];
  /** The auto-lock's lease, and how far a renewal extends it. */
  lease_ms: number;
  /** Minted by core; used only when a new auto-lock is taken. */
  lock_id: string;
  /** The session whose end frees the auto-lock (rule 13). */
  session_id: string | null;
  /** The work tree the edit happens in (absolute path), when known: SPEC §14's holds of that tree do not block it. */
  worktree: string | null;
  /** The agent's session works elsewhere (SPEC §14): the holds of `worktree` block it too. */
  outside?: boolean | undefined;
}

export type EditDecision =
  | { decision: 'allow'; lock: Lock | null; renewed: string[]; lease_until: string }
  | { decision: 'deny'; conflicts: (LockConflict & { task_id: string | null })[] };

/** What ending a session freed: claims requeued, locks released. */
export interface SessionEnded {
  requeued: string[];
  released: string[];
}

export interface LockStore {
  /**
   * Rule 11, a try-lock: every resource is now held by a new lock, or none is and the
   * answer is lock_conflict listing each overlap with a live lock. Nobody waits.
   * A lock whose lease has passed no longer conflicts (it is cleaned up lazily).
   */
  acquireLocks(cmd: AcquireLocksCommand): Promise<Outcome<{ lock: Lock }>>;
  /** Extends a live lock by lease_ms (null: the lease it was taken with). Gone or lapsed: not_found. */
  renewLock(lock_id: string, lease_ms: number | null): Promise<Outcome<{ lease_until: string }>>;
  /**
   * SPEC §10, one transaction: deny naming every live lock of another agent overlapping the keys, or allow —
   * taking one auto-lock for the keys none of the agent's locks cover and renewing its own that run short.
   * When nothing needs writing (the agent holds them all, or the answer is deny) no write transaction opens.
   */
  decideEdit(cmd: DecideEditCommand): Promise<EditDecision>;
  /** Idempotent; `released` says whether this call freed a lock. */
  releaseLock(lock_id: string): Promise<{ released: boolean }>;
  /** Live locks, oldest first. Never writes. */
  listLocks(board?: string): Promise<Lock[]>;
  /** Rule 13: the session's owner is gone — requeue its claims and free its locks now, in one transaction. */
  endSession(session_id: string): Promise<SessionEnded>;
}
