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
 *
 * The shapes below are the zod schemas' own types (schemas.ts): one declaration per shape, which
 * validates input, documents OpenAPI and types the code.
 */
import type { z } from 'zod';
import type { IntegrationState } from './integration/integration.js';
import type {
  AgentsOutput,
  ArtifactSchema,
  ClaimOutput,
  DeliveryViaSchema,
  EventSchema,
  LockSchema,
  MessageSchema,
  NoteSchema,
  ReceiptSchema,
  TaskSchema,
} from './output-schemas.js';
import type { ResultStatusSchema } from './schemas.js';

export const TASK_STATES = ['queued', 'claimed', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'cancelled', 'expired']);

export type ResultStatus = z.output<typeof ResultStatusSchema>;

export const DEFAULT_BOARD = 'default';
export const DEFAULT_LEASE_S = 300;
export const MIN_LEASE_S = 1;
export const MAX_LEASE_S = 24 * 3600;
export const DEFAULT_TTL_S = 86_400;

/** A task as every agent may see it. The claim_id is never part of it: only the claimer receives that. */
export type Task = z.output<typeof TaskSchema>;

/** What the winner of a claim receives; `lock` when the claim locked files (rule 10), ending with it. */
export type ClaimGrant = z.output<typeof ClaimOutput>;

/**
 * An open blocker of a task: its id and its state now (queued, claimed, failed, cancelled or expired), or a
 * completed one not landed yet (SPEC §11), with where its commits stand (`integration`: pending, conflict, …).
 */
export interface Blocker {
  id: string;
  state: TaskState;
  integration?: IntegrationState | undefined;
}

/** What the store says of a blocker: its state, its integration if queued, and whether it has landed. */
export interface BlockerState extends Blocker {
  /** SPEC §11: completed and, where it has commits, merged — its dependents have counted it done. */
  landed: boolean;
}

/** How a board decides readiness (SPEC §11): a blocker counts once landed (default), or once completed. */
export const READY_ON = ['landed', 'completed'] as const;
export type ReadyOn = (typeof READY_ON)[number];

/** At most this many blockers per task (SPEC §11). */
export const MAX_BLOCKERS = 50;
/** At most this many tasks in one plan (SPEC §11). */
export const MAX_PLAN_TASKS = 200;

export type Artifact = z.output<typeof ArtifactSchema>;

/**
 * A lock as anyone may see it. A lock taken with a claim names its task (never
 * the claim_id: that is the claimer's fencing token) and lives as long as the
 * claim; its lease_until is the claim's. Resources are canonical keys, sorted; `dir/` covers everything inside it.
 */
export type Lock = z.output<typeof LockSchema>;

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
  'lock.held',
  'task.noted',
  'message.sent',
  'message.acked',
  'connector.granted',
  'connector.revoked',
  'task.integrated',
  'task.integration',
  'task.approved',
  'agent.launched',
  'agent.state',
  'agent.exited',
  'task.paused',
  'integration.window',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** One entry of the audit trail; `seq` grows monotonically across the whole store. */
export type CoordEvent = z.output<typeof EventSchema>;

export type AgentSeen = z.output<typeof AgentsOutput>['agents'][number];

export const isTerminal = (state: TaskState): boolean => TERMINAL_STATES.has(state);

/** A note on a task (SPEC §12): append-only, anyone who can see the task may add one. */
export type Note = z.output<typeof NoteSchema>;

/** How a message was first shown to a recipient. */
export const DELIVERY_VIAS = ['inbox', 'prime', 'stop', 'push'] as const;
export type DeliveryVia = z.output<typeof DeliveryViaSchema>;

/** One recipient's receipt: when and how the message was first shown, and when it was acknowledged. */
export type Receipt = z.output<typeof ReceiptSchema>;

/**
 * A message between agents (SPEC §12). Private to its sender and recipients; `to` is an agent or `*`
 * (every agent known on the board when it was sent, one receipt each). The sender sees every receipt,
 * a recipient only its own.
 */
export type Message = z.output<typeof MessageSchema>;
