/**
 * Reads of the board written once for both stores (`<store>/read.ts` run them with their runner): a task as
 * its reader may see it, the event log's pages, and the claims of the activity view. PostgreSQL's text; SQLite's
 * runner runs it without the casts.
 */
import type { CoordEvent, Task } from '../../core/model.js';
import type { Activity, EventsQuery } from '../../core/ports.js';
import { all, get, type Prog } from './program.js';
import { type EventRow, type TaskRow, toEvent, toTask } from './rows.js';
import { rowVisibleTo } from './visibility.js';

const EVENTS_WHERE = `seq > @since::bigint AND (@board::text IS NULL OR board = @board)
  AND (@task::text IS NULL OR task_id = @task)`;
const EVENTS = `SELECT * FROM events WHERE ${EVENTS_WHERE} ORDER BY seq LIMIT @limit`;
const EVENTS_TAIL = `SELECT * FROM (SELECT * FROM events WHERE ${EVENTS_WHERE} ORDER BY seq DESC LIMIT @limit) t ORDER BY seq`;

/** Who holds a claim, for the activity view. */
export const ACTIVITY_CLAIMS = `SELECT claimed_by AS agent, id AS task_id FROM tasks
  WHERE state = 'claimed' AND (@board::text IS NULL OR board = @board) ORDER BY claimed_by`;

/** A task, or null when it does not exist or `agent` may not see it. */
export function* taskFor(id: string, agent: string | undefined): Prog<Task | null> {
  const r = yield* get<TaskRow>('SELECT * FROM tasks WHERE id = @id', { id });
  return r && rowVisibleTo(r, agent) ? toTask(r) : null;
}

export function* eventsPage(q: EventsQuery): Prog<CoordEvent[]> {
  const params = { since: q.since, board: q.board ?? null, task: q.task_id ?? null, limit: q.limit };
  return (yield* all<EventRow>(q.tail ? EVENTS_TAIL : EVENTS, params)).map(toEvent);
}

/** The activity view from the agents seen in the window (name, last `at`) and the claims held. */
export const activityOf = (agents: { name: string; at: number }[], claims: Activity['claims']): Activity => ({
  agents: agents.map((a) => ({ name: a.name, last_seen: new Date(a.at).toISOString() })),
  claims,
});
