/**
 * The words of coord (SPEC §1), in the order a newcomer needs them.
 *
 * board    — a namespace of tasks and locks, e.g. one per repository ("default").
 * agent    — a named, self-declared worker: `claude-code#a1f3`, `cursor`, `ci-bot`.
 * task     — a unit of work on a board.
 * claim    — one agent's exclusive right to work a task, for a lease.
 * claim_id — the random, unguessable fencing token naming one claim. Every later
 *            heartbeat, artifact upload, release and submit must present it.
 * lease    — how long a claim (or lock) lasts without a heartbeat.
 * fence    — a number that grows by one with every claim of a task (= attempts),
 *            so systems outside coord can reject writes from an older claim.
 * lock     — an agent's exclusive hold on a set of resources (file paths) for a lease.
 */

export const TASK_STATES = ['queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled', 'expired']);

export type ResultStatus = 'completed' | 'failed';

export const DEFAULT_BOARD = 'default';
export const DEFAULT_LEASE_S = 300;
export const MIN_LEASE_S = 1;
export const MAX_LEASE_S = 24 * 3600;
export const DEFAULT_TTL_S = 86_400;

/** A task as every agent may see it. The claim_id is never part of it: only the claimer receives that. */
export interface Task {
  id: string;
  board: string;
  kind: string;
  title: string;
  body: string;
  priority: number;
  labels: string[];
  for: string | null;
  created_by: string;
  state: TaskState;
  claimed_by: string | null;
  lease_until: string | null;
  attempts: number;
  result_status: ResultStatus | null;
  result: unknown;
  created_at: string;
  updated_at: string;
  expires_at: string;
  idempotency_key: string | null;
  /** The tasks this one waits for (SPEC §11), in the order they were added. */
  blocked_by: string[];
  /** The blockers that are not completed, with their states; empty when nothing holds the task back. */
  blocked: Blocker[];
  /** Queued with every blocker completed: claim-next may take it. */
  ready: boolean;
  parent: string | null;
  /** Present on a task that has children: how many, and how many of them completed. */
  children?: { total: number; completed: number };
}

/** An open blocker of a task: its id and its state now (queued, claimed, failed, cancelled or expired). */
export interface Blocker {
  id: string;
  state: TaskState;
}

/** At most this many blockers per task (SPEC §11). */
export const MAX_BLOCKERS = 50;
/** At most this many tasks in one plan (SPEC §11). */
export const MAX_PLAN_TASKS = 200;

/** What the winner of a claim receives. */
export interface ClaimGrant {
  task: Task;
  claim_id: string;
  fence: number;
  lease_until: string;
  reclaimed: boolean;
  /** Present when the claim locked files (rule 10); the lock ends with the claim. */
  lock?: { lock_id: string; resources: string[] };
}

export interface Artifact {
  id: string;
  task_id: string;
  name: string;
  size: number;
  sha256: string;
  content_type: string;
}

/**
 * A lock as anyone may see it. A lock taken with a claim names its task (never
 * the claim_id: that is the claimer's fencing token) and lives as long as the
 * claim; its lease_until is the claim's.
 */
export interface Lock {
  lock_id: string;
  board: string;
  agent: string;
  /** Canonical keys, sorted; `dir/` covers everything inside it. */
  resources: string[];
  lease_until: string;
  task_id: string | null;
  created_at: string;
}

export const EVENT_TYPES = [
  'task.created',
  'task.claimed',
  'task.requeued',
  'task.completed',
  'task.failed',
  'task.cancelled',
  'task.expired',
  'task.ready',
  'lock.acquired',
  'lock.released',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One entry of the audit trail; `seq` grows monotonically across the whole store. */
export interface CoordEvent {
  seq: number;
  type: EventType;
  board: string;
  task_id: string | null;
  lock_id: string | null;
  agent: string | null;
  at: string;
  data: Record<string, unknown>;
}

export interface AgentSeen {
  name: string;
  active: boolean;
  last_seen: string;
  claims: string[];
  locks: string[];
}

export const isTerminal = (state: TaskState): boolean => TERMINAL_STATES.has(state);
