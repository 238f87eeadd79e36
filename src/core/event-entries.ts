/**
 * The catalogue's entries (core/events.ts has the payload schemas): for each event type, what it says, how it
 * changes a board view's copy of its task, whom it is addressed to, and whether it is news for an agent.
 *
 * This file imports nothing at run time (types only), so it is also what the dashboard runs: `npm run
 * dump:catalogue` bundles it into src/server/web/event-catalogue.js, and a test keeps that file current.
 * Every payload field is read here through `EventData<T>`: a field renamed in PAYLOADS fails to compile here,
 * and nowhere else reads `data` (coord top, the dashboard, `coord events`, the MCP push and the Claude push
 * all go through the functions at the end of this file; the integrator's windows through
 * integration/checking-windows.ts, the catalogue's second file, dumped with this one).
 */
import type { EventData } from './events.js';
import type { CoordEvent, EventType, Task, TaskState } from './model.js';

/** The fields of a task a board view (coord top, the dashboard) keeps, and events change. */
export interface ViewTask {
  id: string;
  board: string;
  kind: string;
  title: string;
  priority: number;
  labels: string[];
  for: string | null;
  created_by: string;
  state: TaskState;
  claimed_by: string | null;
  lease_until: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
}

/** What an event says of the fields it changes; the view takes the event's time as `updated_at`. */
export type ViewPatch = Partial<Pick<ViewTask, 'state' | 'claimed_by' | 'lease_until' | 'attempts' | 'for'>>;

/** How an event changes a board view's copy of its task (the view's reducer). */
interface ViewEntry<T extends EventType> {
  /** task.created: the task as far as the event tells; `incomplete`: read it once for what it does not. */
  creates?(d: EventData<T>, e: CoordEvent): { task: ViewTask; incomplete: boolean };
  /** The fields the event says all there is to know of (a claim, a requeue, an end). */
  sets?(d: EventData<T>, e: CoordEvent): ViewPatch;
  /** The task finished: the tasks it blocked and its parent's counts changed on the daemon. */
  ends?: true;
  /** It changed the task in a way only the daemon knows (ready, a note, integration): read the task again. */
  reread?: true;
}

interface Entry<T extends EventType> {
  /** A few words beyond the type, subject and agent: `coord events`, `coord top`, the dashboard's timeline. */
  text(d: EventData<T>, e: CoordEvent): string;
  /** The line a model reads when this event is news for `me` about `task` (MCP push), or null. */
  news?(d: EventData<T>, e: CoordEvent, task: Task, me: string): string | null;
  /** Whom it names as its addressees, and the words for them (the Claude push channel, without the task). */
  addressed?(d: EventData<T>, e: CoordEvent): { to: readonly string[]; says: string } | null;
  view?: ViewEntry<T>;
  /** What it is about when it names no task: a lock's paths. */
  about?(d: EventData<T>, e: CoordEvent): string;
}

/** `lease_lapsed` → `lease lapsed`. */
const words = (s: string | null | undefined): string => (s ?? '').replaceAll('_', ' ');
const short = (title: string) => (title.length > 80 ? `${title.slice(0, 79)}…` : title);
const take = (task: Task) => `claim_task {"task_id":"${task.id}"} to take it`;
const ended = <T extends EventType>(state: TaskState): ViewEntry<T> => ({
  sets: () => ({ state, lease_until: null }),
  ends: true,
});

export const EVENTS: { [T in EventType]: Entry<T> } = {
  'task.created': {
    text: (d) => `${d.kind} p${d.priority}${d.for ? ` for ${d.for}` : ''} "${d.title}"`,
    news: (_d, _e, task, me) =>
      // SPEC §11: a task that waits for others is news when it becomes ready (task.ready), not before.
      task.created_by === me || task.state !== 'queued' || !task.ready
        ? null
        : `new task #${task.id} ${task.for === me ? 'for you ' : ''}from ${task.created_by} (${task.kind}, p${task.priority}): ${short(task.title)} — ${take(task)}`,
    addressed: (d, e) =>
      d.for && d.for !== e.agent ? { to: [d.for], says: `was posted for you by ${e.agent ?? 'someone'}` } : null,
    view: {
      creates: (d, e) => ({
        task: {
          id: e.task_id ?? '',
          board: e.board,
          kind: d.kind,
          title: d.title,
          priority: d.priority,
          labels: [],
          for: d.for,
          created_by: e.agent ?? '',
          state: 'queued',
          claimed_by: null,
          lease_until: null,
          attempts: 0,
          created_at: e.at,
          updated_at: e.at,
        },
        // Dependencies and parent are not in the event.
        incomplete: Boolean(d.blocked_by?.length || d.parent),
      }),
    },
  },
  'task.claimed': {
    text: (d) => `fence ${d.fence} · lease until ${d.lease_until.slice(11, 19)}`,
    view: {
      sets: (d, e) => ({ state: 'claimed', claimed_by: e.agent, lease_until: d.lease_until, attempts: d.fence }),
    },
  },
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
    addressed: (d) =>
      d.reason === 'handoff' && d.to
        ? { to: [d.to], says: `was handed to you by ${d.previous ?? 'another agent'}` }
        : null,
    view: {
      sets: (d) => ({ state: 'queued', claimed_by: null, lease_until: null, ...(d.to ? { for: d.to } : {}) }),
    },
  },
  'task.completed': { text: (d) => `fence ${d.fence}`, view: ended('completed') },
  'task.failed': { text: (d) => `fence ${d.fence}`, view: ended('failed') },
  'task.cancelled': {
    text: (d) => (d.reason ? `"${d.reason}"` : ''),
    news: (d, e, task, me) => (d.holder === me ? `#${task.id} was cancelled by ${e.agent} — stop working on it` : null),
    view: ended('cancelled'),
  },
  'task.expired': {
    text: () => '',
    news: (_d, e, task, me) => (e.agent === me ? `#${task.id} expired (its ttl passed) — stop working on it` : null),
    view: ended('expired'),
  },
  'task.ready': {
    text: (d) => (d.after ? `after #${d.after}` : ''),
    news: (_d, _e, task, me) =>
      task.state !== 'queued' || !task.ready || (task.for !== null && task.for !== me)
        ? null
        : `#${task.id} is ready (what it waited for completed): ${short(task.title)} — ${take(task)}`,
    view: { reread: true },
  },
  'lock.acquired': { text: (d) => d.resources.join(' '), about: (d) => d.resources.join(' ') },
  'lock.released': {
    text: (d) => `${d.resources.join(' ')}${d.reason ? ` (${words(d.reason)})` : ''}`,
    about: (d) => d.resources.join(' '),
  },
  // Why the lock ended (lease lapsed, released, session ended …), then what it became.
  'lock.held': {
    about: (d) => d.resources.join(' '),
    text: (d) =>
      `${d.resources.join(' ')}${d.reason ? ` (${words(d.reason)})` : ''} held until merged${d.worktree ? ` (${d.worktree})` : ''}`,
  },
  'task.noted': { text: (d) => `note ${d.note_id}${d.with ? ` with ${d.with}` : ''}`, view: { reread: true } },
  'message.sent': {
    text: (d) => `to ${d.to}${d.task_id ? ` about #${d.task_id}` : ''}${d.ack_required ? ' (ack)' : ''}`,
    addressed: (d) => ({ to: d.recipients, says: 'a message' }),
  },
  'message.acked': { text: (d) => `${d.message_id}${d.auto ? ' (auto)' : ''}` },
  // The agent who did the work hears of an integration result by a message sent in the same transaction.
  'task.integrated': {
    text: (d) =>
      `merged into ${d.target}${d.commit ? ` as ${d.commit.slice(0, 7)}` : ''}${d.how ? ` (${words(d.how)})` : ''}`,
    view: { reread: true },
  },
  'task.integration': {
    text: (d) =>
      `${words(d.state)}${d.reason ? `: ${d.reason}` : ''}${d.followup ? ` (follow-up #${d.followup})` : ''}`,
    view: { reread: true },
  },
  // A person's approval: the integrator merges it at its next turn (a running one is woken by this event).
  'task.approved': {
    text: (d) =>
      `approved the merge${d.target ? ` into ${d.target}` : ''}${d.state === 'pending' ? ' before its turn' : ''}`,
    view: { reread: true },
  },
  // SPEC §15: the group is named as the subject; each task's outcome is its own event (see checkingAfter).
  'integration.window': {
    about: (d) => d.tasks.map((id) => `#${id}`).join(' '),
    text: (d) => `together on ${d.target} (window ${d.size}${d.lane ? `, lane ${d.lane}` : ''})`,
  },
  'agent.launched': {
    text: (d) =>
      `${d.client} pid ${d.pid ?? '?'} in ${d.worktree} (${d.branch}${d.attempt > 1 ? `, try ${d.attempt}` : ''})`,
  },
  'agent.state': { text: (d) => d.state },
  'agent.exited': {
    text: (d) =>
      `${d.submitted ? 'submitted' : 'without submitting'}, exit ${d.code ?? 'by signal'}${d.usage ? `, ${d.usage.input_tokens + d.usage.output_tokens} tokens${d.usage.cost_usd === undefined ? '' : `, $${d.usage.cost_usd.toFixed(4)}`}` : ''}`,
  },
  'task.paused': { text: (d) => `usage limit: paused until ${d.until}` },
  'connector.granted': { text: (d) => `${d.client_name} (grant ${d.grant_id})` },
  'connector.revoked': { text: (d) => `${d.client_name} (grant ${d.grant_id}, ${words(d.why)})` },
};

/**
 * Each event type's name for a person, a word or two: the column `coord top`'s timeline prints instead of the
 * raw type (`held`, not `lock.held`), sized to the longest of these so none is cut.
 */
export const LABELS: { [T in EventType]: string } = {
  'task.created': 'created',
  'task.claimed': 'claimed',
  'task.requeued': 'requeued',
  'task.completed': 'completed',
  'task.failed': 'failed',
  'task.cancelled': 'cancelled',
  'task.expired': 'expired',
  'task.ready': 'ready',
  'lock.acquired': 'locked',
  'lock.released': 'unlocked',
  'lock.held': 'held',
  'task.noted': 'noted',
  'message.sent': 'message',
  'message.acked': 'acked',
  'task.integrated': 'merged',
  'task.integration': 'integration',
  'task.approved': 'approved',
  'agent.launched': 'launched',
  'agent.state': 'agent',
  'agent.exited': 'exited',
  'task.paused': 'paused',
  'connector.granted': 'connected',
  'connector.revoked': 'disconnected',
  'integration.window': 'checking',
};

/** The type's label; a type this build does not know (a newer daemon's) is shown as it is. */
export function eventLabel(e: Pick<CoordEvent, 'type'>): string {
  return (LABELS as Record<string, string | undefined>)[e.type] ?? e.type;
}

type AnyEntry = Entry<EventType>;
const entryOf = (e: Pick<CoordEvent, 'type'>): AnyEntry | undefined =>
  (EVENTS as unknown as Record<string, AnyEntry | undefined>)[e.type];
const dataOf = (e: CoordEvent) => e.data as EventData<EventType>;

/** The event's one-line text (empty for a type this build does not know: a newer daemon's). */
export function eventText(e: CoordEvent): string {
  return entryOf(e)?.text(dataOf(e), e) ?? '';
}

/** What the event is about: `#task`, else what it names (a lock's paths), else its lock id. */
export function eventSubject(e: CoordEvent): string {
  if (e.task_id) return `#${e.task_id}`;
  return entryOf(e)?.about?.(dataOf(e), e) || (e.lock_id ?? '');
}

/** The line a model should read for this event, or null when it is not news for `me`. */
export function newsFor(e: CoordEvent, task: Task, me: string): string | null {
  return entryOf(e)?.news?.(dataOf(e), e, task, me) ?? null;
}

/** What the event says to `me` by name (a message, a handoff, a task posted for me), or null. */
export function addressedTo(e: CoordEvent, me: string): string | null {
  const a = entryOf(e)?.addressed?.(dataOf(e), e);
  return a?.to.includes(me) ? a.says : null;
}

/** What a board view does with an event about a task it may hold. */
export type ViewChange<V extends ViewTask> =
  /** Not about a task, or older than the copy held. */
  | { kind: 'none' }
  /** Read the task from the daemon (unknown to the view, or changed in a way only the daemon knows). */
  | { kind: 'reread' }
  /** The task's new copy; `reread`: read it once more for what the event does not say; `ends`: it finished. */
  | { kind: 'set'; task: V; reread: boolean; ends: boolean };

/**
 * The board views' reducer (coord top's board-state.ts, the dashboard's board.js): the copy `held` of the
 * event's task (undefined: not held) after the event. `fill` completes a created task with the view's own fields.
 */
export function viewChange<V extends ViewTask>(
  held: V | undefined,
  e: CoordEvent,
  fill: (t: ViewTask) => V,
): ViewChange<V> {
  if (!e.task_id) return { kind: 'none' };
  const view = entryOf(e)?.view;
  if (!held) {
    const created = view?.creates?.(dataOf(e), e);
    if (!created) return { kind: 'reread' };
    return { kind: 'set', task: fill(created.task), reread: created.incomplete, ends: false };
  }
  if (!view) return { kind: 'none' };
  if (!view.sets) return { kind: 'reread' };
  // What the view holds is already newer (it was read after this event).
  if (e.at < held.updated_at) return { kind: 'none' };
  return {
    kind: 'set',
    task: { ...held, ...view.sets(dataOf(e), e), updated_at: e.at },
    reread: false,
    ends: !!view.ends,
  };
}
