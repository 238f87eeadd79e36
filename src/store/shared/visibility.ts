/**
 * Who may see a task (core/board/rules.ts `visibleTo`), read on a tasks row: the one check every store operation
 * that names a task makes before it answers or writes (get, cancel, notes, messages about a task, links of a
 * new task, dependencies). An invisible task is `not_found` (SPEC rule 4).
 */
import { visibleTo } from '../../core/board/rules.js';

/** The columns of a tasks row the rule reads. */
export interface VisibilityRow {
  for_agent: string | null;
  created_by: string;
  /** Who handed it over (release --to): it still sees the task it gave away. */
  handed_by: string | null;
}

/** Whether `agent` may see the task of this row; no agent is the operator's view, which sees every task. */
export const rowVisibleTo = (r: VisibilityRow, agent: string | undefined): boolean =>
  visibleTo({ for: r.for_agent, created_by: r.created_by, handed_by: r.handed_by }, agent);

/**
 * The same rule as a SQL condition on `tasks`, for lists: `agent` is the parameter as the backend writes it
 * (`@agent` in SQLite, `@agent::text` in PostgreSQL, whose driver needs the type of a parameter that may be null).
 */
export const visibleSql = (agent: string): string =>
  `(${agent} IS NULL OR for_agent IS NULL OR for_agent = ${agent} OR created_by = ${agent} OR handed_by = ${agent})`;
