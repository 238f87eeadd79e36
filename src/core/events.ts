/**
 * The event catalogue (STYLE: events are a catalogue): for each event type, its payload (a zod schema: the
 * type of `data`) here, and in event-entries.ts its one-line text, how it changes a board view (the reducer),
 * whom it addresses and whether it is news for an agent — declared once.
 *
 * - The stores build every payload through typed builders (store/shared/task-events.ts, message-rows.ts,
 *   new-event.ts): `NewEvent` is a union over this catalogue, so a payload field renamed here fails to compile
 *   where it is built, and where it is read (`EventData<T>`).
 * - Readers: `coord events`, `coord top`'s timeline and detail (eventText) and its reducer (viewChange), the
 *   dashboard (server/web/event-catalogue.js, the same entries bundled: text and reducer), the MCP inbox push
 *   (server/mcp/inbox-push.ts: newsFor) and the Claude push channel (client/claude-push.ts: addressedTo).
 *
 * Adding an event type: add it to EVENT_TYPES (model.ts) and give it one entry in PAYLOADS and one in EVENTS;
 * the compiler lists every place that is then incomplete (docs/architecture.md, "Events").
 */
import { z } from 'zod';
import { INTEGRATION_STATES } from './integration/integration.js';
import type { EventType } from './model.js';
import { AGENT_STATES, UsageSchema } from './runs/supervision.js';

const Fence = z.object({ fence: z.number() });

/** Why a claim went back to the queue. */
export const REQUEUE_REASONS = ['lease_lapsed', 'session_ended', 'released', 'handoff'] as const;

const PAYLOADS = {
  'task.created': z.object({
    title: z.string(),
    kind: z.string(),
    priority: z.number(),
    for: z.string().nullable(),
    blocked_by: z.array(z.string()).optional(),
    parent: z.string().optional(),
  }),
  'task.claimed': z.object({ fence: z.number(), lease_until: z.string() }),
  'task.requeued': z.object({
    reason: z.enum(REQUEUE_REASONS),
    /** A release names the agent it handed the task to (null: to anyone). */
    to: z.string().nullable().optional(),
    previous: z.string().nullable(),
    fence: z.number(),
  }),
  'task.completed': Fence,
  'task.failed': Fence,
  'task.cancelled': z.object({ reason: z.string().nullable().optional(), holder: z.string().nullable() }),
  'task.expired': z.object({}),
  /** `after`: the task whose completion made it ready. */
  'task.ready': z.object({ after: z.string().optional() }),
  'lock.acquired': z.object({ resources: z.array(z.string()), lease_until: z.string() }),
  'lock.released': z.object({ resources: z.array(z.string()), reason: z.string() }),
  // SPEC §14: a lock from a work tree ended and stays as that work tree's change hold until merged.
  'lock.held': z.object({ resources: z.array(z.string()), reason: z.string(), worktree: z.string().nullable() }),
  'task.noted': z.object({ note_id: z.string(), with: z.string().optional() }),
  'message.sent': z.object({
    message_id: z.string(),
    from: z.string(),
    to: z.string(),
    recipients: z.array(z.string()),
    task_id: z.string().nullable(),
    ack_required: z.boolean(),
  }),
  'message.acked': z.object({ message_id: z.string(), by: z.string(), auto: z.boolean() }),
  /** SPEC §15: the integrator merged the task's head into the target (`how`: fast-forward, merge, contained). */
  'task.integrated': z.object({
    commit: z.string().nullable(),
    target: z.string(),
    how: z.string().nullable(),
    flaky: z.boolean().optional(),
  }),
  /** SPEC §15: any other integration result (conflict, check_failed, blocked, awaiting_review …). */
  'task.integration': z.object({
    state: z.enum(INTEGRATION_STATES),
    reason: z.string().nullable(),
    target: z.string(),
    followup: z.string().optional(),
  }),
  /**
   * SPEC §15 "Speculative window": the integrator began checking these tasks together (cumulative merges, in
   * integration order) on `target`; `size` is the window's size now, `lane` (1, 2, …) its lane with `--lanes`.
   * Each task's outcome follows as its own task.integrated / task.integration event.
   */
  'integration.window': z.object({
    target: z.string(),
    tasks: z.array(z.string()).min(1),
    size: z.number(),
    lane: z.number().optional(),
  }),
  /** SPEC §15/§19: a person approved a merge (held for review, or pending before its turn); `agent` says who. */
  'task.approved': z.object({ state: z.enum(INTEGRATION_STATES), target: z.string().nullable() }),
  /** SPEC §18: `coord run` started an agent process for the task (`attempt` 1 = the first try). */
  'agent.launched': z.object({
    client: z.string(),
    pid: z.number().nullable(),
    worktree: z.string(),
    branch: z.string(),
    attempt: z.number(),
    supervisor: z.string(),
  }),
  /** SPEC §18: what a supervised agent is doing now, read from its event stream. */
  'agent.state': z.object({ state: z.enum(AGENT_STATES) }),
  /** SPEC §18: the agent process ended; `submitted`: it had submitted its task. */
  'agent.exited': z.object({
    code: z.number().nullable(),
    submitted: z.boolean(),
    usage: UsageSchema.nullable().optional(),
  }),
  /** SPEC §18: a usage limit paused the task until then (the lease held, no retry spent). */
  'task.paused': z.object({ until: z.string() }),
  /** SPEC §16: a chat host's connector was approved by the owner (one grant = one agent on one board). */
  'connector.granted': z.object({ grant_id: z.string(), client_id: z.string(), client_name: z.string() }),
  'connector.revoked': z.object({
    grant_id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    why: z.enum(['revoked', 'client_deleted', 'token_reused']),
  }),
} satisfies Record<EventType, z.ZodType>;

/** The payload (`data`) of an event of type T. */
export type EventData<T extends EventType> = z.output<(typeof PAYLOADS)[T]>;

/** The schema of an event type's payload (the store contract checks stored events against it). */
export const payloadSchema = <T extends EventType>(type: T): (typeof PAYLOADS)[T] => PAYLOADS[type];

// The entries — text, news, addressees and the board views' reducer — are in event-entries.ts, which imports
// nothing at run time so the dashboard can run it too.
export {
  addressedTo,
  EVENTS,
  eventLabel,
  eventSubject,
  eventText,
  LABELS,
  newsFor,
  type ViewChange,
  type ViewTask,
  viewChange,
} from './event-entries.js';
export { type CheckingWindow, checkingAfter, checkingText } from './integration/checking-windows.js';
