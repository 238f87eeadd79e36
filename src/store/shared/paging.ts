/**
 * Task lists, the same in both stores: the list's statement (PostgreSQL's text; SQLite's runner runs it without
 * the casts) and its paging, newest first, the cursor the (created_at, id) of the last row of the previous page.
 * The store asks for one row more than the page to know if more follow.
 */
import type { Task } from '../../core/model.js';
import type { ListTasksQuery } from '../../core/ports.js';
import { all, type Prog } from './program.js';
import { type TaskRow, toTask } from './rows.js';
import { visibleSql } from './visibility.js';

/** The list's statement, given how the store asks whether a row's labels hold `@label`. */
export const listTasksSql = (hasLabel: string): string => `SELECT * FROM tasks
  WHERE (@board::text IS NULL OR board = @board) AND (@state::text IS NULL OR state = @state)
    AND (@kind::text IS NULL OR kind = @kind)
    AND (@label::text IS NULL OR ${hasLabel})
    AND ${visibleSql('@agent::text')}
    AND (@parent::text IS NULL OR parent = @parent)
    AND (@ready::boolean IS NULL OR (state = 'queued' AND (blockers_open = 0) = @ready))
    AND (@at::bigint IS NULL OR (created_at, id) < (@at, @id::text))
  ORDER BY created_at DESC, id DESC LIMIT @limit`;

/** One page of the list (`text`: the store's listTasksSql). */
export function* tasksPage(text: string, q: ListTasksQuery): Prog<{ tasks: Task[]; next_cursor: string | null }> {
  return taskPage(yield* all<TaskRow>(text, listParams(q)), q.limit);
}

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
