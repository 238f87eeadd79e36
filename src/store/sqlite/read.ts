import type { CoordEvent, Task } from '../../core/model.js';
import type { Activity, EventsQuery, ListTasksQuery } from '../../core/ports.js';
import { listTasksSql, tasksPage } from '../shared/paging.js';
import { ACTIVITY_CLAIMS, activityOf, eventsPage, taskFor } from '../shared/reads.js';
import type { Db } from './database.js';
import { inSqlite, runSync } from './runner.js';
import { stmt } from './tx.js';

const LIST = listTasksSql('EXISTS (SELECT 1 FROM json_each(tasks.labels) AS l WHERE l.value = @label)');
const ACTIVITY_SQL = inSqlite(ACTIVITY_CLAIMS);

export const getTask = (db: Db, id: string, agent: string | undefined): Task | null => runSync(taskFor(id, agent), db);

/** Newest first (shared/paging.ts); a row's labels are JSON text. */
export const listTasks = (db: Db, q: ListTasksQuery): { tasks: Task[]; next_cursor: string | null } =>
  runSync(tasksPage(LIST, q), db);

export const listEvents = (db: Db, q: EventsQuery): CoordEvent[] => runSync(eventsPage(q), db);

export const lastSeq = (db: Db): number =>
  (stmt(db, 'SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;

export function activity(db: Db, now: number, q: { board?: string | undefined; since_ms: number }): Activity {
  const p = { board: q.board ?? null, since: now - q.since_ms };
  // The table's tail, newest first, up to the window's start: events are appended in time order (a seq's
  // `at` is its commit's instant), so no index on time is kept for this (one page fewer at every commit).
  const seen = new Map<string, number>();
  for (const e of stmt(db, 'SELECT agent, at, board FROM events ORDER BY seq DESC').iterate() as IterableIterator<{
    agent: string | null;
    at: number;
    board: string;
  }>) {
    if (e.at < p.since) break;
    if (e.agent !== null && (p.board === null || e.board === p.board) && !seen.has(e.agent)) seen.set(e.agent, e.at);
  }
  const agents = [...seen].map(([name, at]) => ({ name, at })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const claims = stmt(db, ACTIVITY_SQL).all(p) as Activity['claims'];
  return activityOf(agents, claims);
}
