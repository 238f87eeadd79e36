/**
 * The inbox (SPEC §6) as data, written once for both stores: the agent's own claims, then the queued tasks it
 * may claim — its private ones first, then the board's by priority and age. With `since`, only tasks that
 * changed after that cursor, plus those that left the view. Read-only: a program (program.ts) each store runs
 * in one snapshot, over these statements in PostgreSQL's text (SQLite's runner runs them without the casts).
 */
import type { InboxQuery, InboxView } from '../../core/ports.js';
import { changedView } from './inbox-changes.js';
import { all, get, type Prog } from './program.js';
import { type TaskRow, toTask } from './rows.js';

const QUEUED = "board = @board AND state = 'queued'";

export const INBOX_SQL = {
  cursor: 'SELECT COALESCE(MAX(seq), 0)::bigint AS seq FROM events',
  ownClaims: `SELECT * FROM tasks WHERE claimed_by = @agent AND board = @board AND state = 'claimed'
  ORDER BY lease_until`,
  private: `SELECT * FROM tasks WHERE ${QUEUED} AND blockers_open = 0 AND for_agent = @agent
  AND expires_at > @now::bigint ORDER BY priority, created_at, id LIMIT @limit`,
  public: `SELECT * FROM tasks WHERE ${QUEUED} AND blockers_open = 0 AND for_agent IS NULL
  AND expires_at > @now::bigint ORDER BY priority, created_at, id LIMIT @limit`,
  count: `SELECT count(*) AS n FROM tasks WHERE ${QUEUED} AND blockers_open = 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now::bigint`,
  // SPEC §11: blocked tasks are not listed, only counted in the header.
  blocked: `SELECT count(*)::int AS n FROM tasks WHERE ${QUEUED} AND blockers_open > 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now::bigint`,
  changed: `SELECT * FROM tasks WHERE id IN
  (SELECT task_id FROM events WHERE board = @board AND seq > @since::bigint AND task_id IS NOT NULL LIMIT 2000)`,
};

export type InboxSql = typeof INBOX_SQL;

export function* inbox(sql: InboxSql, now: number, q: InboxQuery): Prog<InboxView> {
  // The cursor is read first: a change committed while we read is shown again next time, never lost.
  const cursor = (yield* get<{ seq: number }>(sql.cursor))?.seq ?? 0;
  const p = { agent: q.agent, board: q.board, now, limit: q.limit };
  if (q.since !== undefined) {
    const changed = yield* all<TaskRow>(sql.changed, { board: q.board, since: q.since });
    return { ...changedView(changed, q.agent, now, q.limit, cursor), blocked: yield* blockedCount(sql, p) };
  }
  const claims = yield* all<TaskRow>(sql.ownClaims, p);
  const mine = yield* all<TaskRow>(sql.private, p);
  const open = yield* all<TaskRow>(sql.public, { ...p, limit: Math.max(0, q.limit - mine.length) });
  const tasks = [...mine, ...open];
  // Fewer rows than asked for means nothing was cut off: count only when the list is full.
  const total = tasks.length < q.limit ? tasks.length : ((yield* get<{ n: number }>(sql.count, p))?.n ?? 0);
  const view = { cursor, claims: claims.map(toTask), tasks: tasks.map(toTask), more: total - tasks.length, gone: [] };
  return { ...view, blocked: yield* blockedCount(sql, p) };
}

function* blockedCount(sql: InboxSql, p: object): Prog<number> {
  return (yield* get<{ n: number }>(sql.blocked, p))?.n ?? 0;
}
