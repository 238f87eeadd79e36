import type { CoordEvent, Task } from '../../core/model.js';
import type { Activity, EventsQuery, ListTasksQuery } from '../../core/ports.js';
import { listParams, taskPage } from '../shared/paging.js';
import { ACTIVITY_CLAIMS, activityOf, eventsPage, taskFor } from '../shared/reads.js';
import type { TaskRow } from '../shared/rows.js';
import { visibleSql } from '../shared/visibility.js';
import type { Queryable } from './database.js';
import { runAsync } from './runner.js';
import { row, rows } from './sql.js';

const VISIBLE = visibleSql('@agent::text');

export const getTask = (db: Queryable, id: string, agent: string | undefined): Promise<Task | null> =>
  runAsync(taskFor(id, agent), db);

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

export const listEvents = (db: Queryable, q: EventsQuery): Promise<CoordEvent[]> => runAsync(eventsPage(q), db);

export const lastSeq = async (db: Queryable): Promise<number> =>
  (await row<{ seq: number }>(db, 'SELECT COALESCE(MAX(seq), 0)::bigint AS seq FROM events'))?.seq ?? 0;

const AGENTS = `SELECT agent AS name, MAX(at) AS at FROM events
  WHERE agent IS NOT NULL AND at >= @since::bigint AND (@board::text IS NULL OR board = @board) GROUP BY agent`;

export async function activity(
  db: Queryable,
  now: number,
  q: { board?: string | undefined; since_ms: number },
): Promise<Activity> {
  const board = q.board ?? null;
  const agents = await rows<{ name: string; at: number }>(db, AGENTS, { board, since: now - q.since_ms });
  return activityOf(agents, await rows<Activity['claims'][number]>(db, ACTIVITY_CLAIMS, { board }));
}
