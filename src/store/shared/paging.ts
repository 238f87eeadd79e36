/**
 * Paging of task lists, the same in both stores: newest first, and the cursor is the (created_at, id)
 * of the last row of the previous page. The store asks for one row more than the page to know if more follow.
 */
import type { Task } from '../../core/model.js';
import type { ListTasksQuery } from '../../core/ports.js';
import { type TaskRow, toTask } from './rows.js';

/** The named parameters of a list query, the cursor decoded; `limit` is one over the page. */
export function listParams(q: ListTasksQuery) {
  const m = q.cursor ? /^(\d+)\.([A-Za-z0-9_-]+)$/.exec(q.cursor) : null;
  const [at, id] = m?.[1] && m[2] ? [Number(m[1]), m[2]] : [null, null];
  return {
    board: q.board ?? null,
    state: q.state ?? null,
    kind: q.kind ?? null,
    label: q.label ?? null,
    agent: q.agent ?? null,
    parent: q.parent ?? null,
    ready: q.ready ?? null,
    at,
    id,
    limit: q.limit + 1,
  };
}

/** The page from `found` (up to limit + 1 rows) and the cursor of the next one. */
export function taskPage(found: TaskRow[], limit: number): { tasks: Task[]; next_cursor: string | null } {
  const page = found.slice(0, limit);
  const last = page.at(-1);
  return {
    tasks: page.map(toTask),
    next_cursor: found.length > limit && last ? `${last.created_at}.${last.id}` : null,
  };
}
