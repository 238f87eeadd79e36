import type { CoordEvent, Task } from '../../core/model.js';
import type { Activity, EventsQuery, ListTasksQuery } from '../../core/ports.js';
import { listTasksSql, tasksPage } from '../shared/paging.js';
import { ACTIVITY_CLAIMS, activityOf, eventsPage, taskFor } from '../shared/reads.js';
import type { Queryable } from './database.js';
import { runAsync } from './runner.js';
import { row, rows } from './sql.js';

export const getTask = (db: Queryable, id: string, agent: string | undefined): Promise<Task | null> =>
  runAsync(taskFor(id, agent), db);

const LIST = listTasksSql('@label = ANY (labels)');

/** Newest first (shared/paging.ts). */
export const listTasks = (db: Queryable, q: ListTasksQuery): Promise<{ tasks: Task[]; next_cursor: string | null }> =>
  runAsync(tasksPage(LIST, q), db);

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
