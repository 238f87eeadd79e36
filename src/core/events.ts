/**
 * The event catalogue (STYLE: events are a catalogue): for each event type, its payload (a zod schema: the
 * type of `data`), its one-line text, and whether it is news for an agent — declared once, here.
 *
 * - The stores build every payload through typed builders (store/shared/task-events.ts, message-rows.ts,
 *   new-event.ts): `NewEvent` is a union over this catalogue, so a payload field renamed here fails to compile
 *   where it is built, and where it is read (`EventData<T>`).
 * - Readers: `coord events` and `coord top`'s timeline and detail (eventText), the MCP inbox push
 *   (server/mcp/inbox-push.ts: newsFor).
 *
 * Adding an event type: add it to EVENT_TYPES (model.ts) and give it one entry in PAYLOADS and one in EVENTS;
 * the compiler lists every place that is then incomplete (docs/architecture.md, "Events").
 */
import { z } from 'zod';
import { INTEGRATION_STATES } from './integration.js';
import type { CoordEvent, EventType, Task } from './model.js';

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
  'task.integrated': z.object({ commit: z.string().nullable(), target: z.string(), how: z.string().nullable() }),
  /** SPEC §15: any other integration result (conflict, check_failed, blocked, awaiting_review …). */
  'task.integration': z.object({
    state: z.enum(INTEGRATION_STATES),
    reason: z.string().nullable(),
    target: z.string(),
    followup: z.string().optional(),
  }),
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

interface Entry<T extends EventType> {
  /** A few words beyond the type, subject and agent: `coord events`, `coord top`'s timeline and detail. */
  text(d: EventData<T>, e: CoordEvent): string;
  /** The line a model reads when this event is news for `me` about `task` (push), or null. */
  news?(d: EventData<T>, e: CoordEvent, task: Task, me: string): string | null;
}

/** `lease_lapsed` → `lease lapsed`. */
const words = (s: string | null | undefined): string => (s ?? '').replaceAll('_', ' ');
const short = (title: string) => (title.length > 80 ? `${title.slice(0, 79)}…` : title);
const take = (task: Task) => `claim_task {"task_id":"${task.id}"} to take it`;

export const EVENTS: { [T in EventType]: Entry<T> } = {
  'task.created': {
    text: (d) => `${d.kind} p${d.priority}${d.for ? ` for ${d.for}` : ''} "${d.title}"`,
    news: (_d, _e, task, me) =>
      // SPEC §11: a task that waits for others is news when it becomes ready (task.ready), not before.
      task.created_by === me || task.state !== 'queued' || !task.ready
        ? null
        : `new task #${task.id} ${task.for === me ? 'for you ' : ''}from ${task.created_by} (${task.kind}, p${task.priority}): ${short(task.title)} — ${take(task)}`,
  },
  'task.claimed': { text: (d) => `fence ${d.fence} · lease until ${d.lease_until.slice(11, 19)}` },
  'task.requeued': {
    text: (d) => `${words(d.reason)}${d.to ? ` to ${d.to}` : ''}`,
    news: (d, _e, task, me) => {
      if (d.previous === me)
        return d.reason === 'lease_lapsed'
          ? `your lease on #${task.id} ran out and it is queued again — stop, or ${take(task)} again`
          : null;
      if (task.state !== 'queued') return null;
      return d.reason === 'handoff' && d.to === me
        ? `#${task.id} was handed to you by ${String(d.previous)}: ${short(task.title)} — ${take(task)}`
        : `#${task.id} is queued again: ${short(task.title)} — ${take(task)}`;
    },
  },
  'task.completed': { text: (d) => `fence ${d.fence}` },
  'task.failed': { text: (d) => `fence ${d.fence}` },
  'task.cancelled': {
    text: (d) => (d.reason ? `"${d.reason}"` : ''),
    news: (d, e, task, me) => (d.holder === me ? `#${task.id} was cancelled by ${e.agent} — stop working on it` : null),
  },
  'task.expired': {
    text: () => '',
    news: (_d, e, task, me) => (e.agent === me ? `#${task.id} expired (its ttl passed) — stop working on it` : null),
  },
  'task.ready': {
    text: (d) => (d.after ? `after #${d.after}` : ''),
    news: (_d, _e, task, me) =>
      task.state !== 'queued' || !task.ready || (task.for !== null && task.for !== me)
        ? null
        : `#${task.id} is ready (what it waited for completed): ${short(task.title)} — ${take(task)}`,
  },
  'lock.acquired': { text: (d) => d.resources.join(' ') },
  'lock.released': { text: (d) => `${d.resources.join(' ')}${d.reason ? ` (${words(d.reason)})` : ''}` },
  // Why the lock ended (lease lapsed, released, session ended …), then what it became.
  'lock.held': {
    text: (d) =>
      `${d.resources.join(' ')}${d.reason ? ` (${words(d.reason)})` : ''} held until merged${d.worktree ? ` (${d.worktree})` : ''}`,
  },
  'task.noted': { text: (d) => `note ${d.note_id}${d.with ? ` with ${d.with}` : ''}` },
  'message.sent': {
    text: (d) => `to ${d.to}${d.task_id ? ` about #${d.task_id}` : ''}${d.ack_required ? ' (ack)' : ''}`,
  },
  'message.acked': { text: (d) => `${d.message_id}${d.auto ? ' (auto)' : ''}` },
  // The agent who did the work hears of an integration result by a message sent in the same transaction.
  'task.integrated': {
    text: (d) =>
      `merged into ${d.target}${d.commit ? ` as ${d.commit.slice(0, 7)}` : ''}${d.how ? ` (${words(d.how)})` : ''}`,
  },
  'task.integration': {
    text: (d) =>
      `${words(d.state)}${d.reason ? `: ${d.reason}` : ''}${d.followup ? ` (follow-up #${d.followup})` : ''}`,
  },
  'connector.granted': { text: (d) => `${d.client_name} (grant ${d.grant_id})` },
  'connector.revoked': { text: (d) => `${d.client_name} (grant ${d.grant_id}, ${words(d.why)})` },
};

const entryOf = (e: CoordEvent): Entry<EventType> | undefined =>
  (EVENTS as unknown as Record<string, Entry<EventType> | undefined>)[e.type];

/** The event's one-line text (empty for a type this build does not know: a newer daemon's). */
export function eventText(e: CoordEvent): string {
  return entryOf(e)?.text(e.data as EventData<EventType>, e) ?? '';
}

/** The line a model should read for this event, or null when it is not news for `me`. */
export function newsFor(e: CoordEvent, task: Task, me: string): string | null {
  return entryOf(e)?.news?.(e.data as EventData<EventType>, e, task, me) ?? null;
}
