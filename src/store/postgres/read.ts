import type { CoordEvent, Task } from '../../core/model.js';
import type { Activity, EventsQuery, ListTasksQuery } from '../../core/ports.js';
import { listParams, taskPage } from '../shared/paging.js';
import { type EventRow, type TaskRow, toEvent, toTask } from '../shared/rows.js';
import { rowVisibleTo, visibleSql } from '../shared/visibility.js';
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';

const VISIBLE = visibleSql('@agent::text');

export async function getTask(db: Queryable, id: string, agent: string | undefined): Promise<Task | null> {
  const r = await row<TaskRow>(db, 'SELECT * FROM tasks WHERE id = @id', { id });
  if (!r || !rowVisibleTo(r, agent)) return null;
  return toTask(r);
}

const LIST = `SELECT * FROM tasks
  WHERE (@board::text IS NULL OR board = @board) AND (@state::text IS NULL OR state = @state)
    AND (@kind::text IS NULL OR kind = @kind)
    AND (@label::text IS NULL OR @label = ANY (labels))
    AND ${VISIBLE}
    AND (@parent::text IS NULL OR parent = @parent)
    AND (@ready::boolean IS NULL OR (state = 'queued' AND (blockers_open = 0) = @ready))
    AND (@at::bigint IS NULL OR (created_at, id) < (@at, @id::text))
  ORDER BY created_at DESC, id DESC LIMIT @limit`;

/** Newest first; the cursor is the (created_at, id) of the last row of the previous page. */
export async function listTasks(
  db: Queryable,
  q: ListTasksQuery,
): Promise<{ tasks: Task[]; next_cursor: string | null }> {
  const found = await rows<TaskRow>(db, LIST, listParams(q));
  return taskPage(found, q.limit);
}

const EVENTS_WHERE = `seq > @since::bigint AND (@board::text IS NULL OR board = @board)
  AND (@task::text IS NULL OR task_id = @task)`;
const EVENTS = `SELECT * FROM events WHERE ${EVENTS_WHERE} ORDER BY seq LIMIT @limit`;
const EVENTS_TAIL = `SELECT * FROM (SELECT * FROM events WHERE ${EVENTS_WHERE} ORDER BY seq DESC LIMIT @limit) t ORDER BY seq`;

export async function listEvents(db: Queryable, q: EventsQuery): Promise<CoordEvent[]> {
  const found = await rows<EventRow>(db, q.tail ? EVENTS_TAIL : EVENTS, {
    since: q.since,
    board: q.board ?? null,
    task: q.task_id ?? null,
    limit: q.limit,
  });
  return found.map(toEvent);
}

export const lastSeq = async (db: Queryable): Promise<number> =>
  (await row<{ seq: number }>(db, 'SELECT COALESCE(MAX(seq), 0)::bigint AS seq FROM events'))?.seq ?? 0;

const AGENTS = `SELECT agent AS name, MAX(at) AS at FROM events
  WHERE agent IS NOT NULL AND at >= @since::bigint AND (@board::text IS NULL OR board = @board) GROUP BY agent`;
const CLAIMS = `SELECT claimed_by AS agent, id AS task_id FROM tasks
  WHERE state = 'claimed' AND (@board::text IS NULL OR board = @board) ORDER BY claimed_by`;

export async function activity(
  db: Queryable,
  now: number,
  q: { board?: string | undefined; since_ms: number },
): Promise<Activity> {
  const board = q.board ?? null;
  const agents = await rows<{ name: string; at: number }>(db, AGENTS, { board, since: now - q.since_ms });
  const claims = await rows<{ agent: string; task_id: string }>(db, CLAIMS, { board });
  return { agents: agents.map((a) => ({ name: a.name, last_seen: new Date(a.at).toISOString() })), claims };
}
