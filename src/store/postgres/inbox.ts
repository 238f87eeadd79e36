/**
 * The inbox (SPEC §6) as data: the agent's own claims, then the queued tasks it
 * may claim — its private ones first, then the board's by priority and age.
 * With `since`, only tasks that changed after that cursor, plus those that
 * left the view. Read-only.
 */
import type { InboxQuery, InboxView } from '../../core/ports.js';
import { changedView } from '../shared/inbox-changes.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import type { Queryable } from './database.js';
import { lastSeq } from './read.js';
import { row, rows } from './sql.js';

const OWN_CLAIMS = `SELECT * FROM tasks WHERE claimed_by = @agent AND board = @board AND state = 'claimed'
  ORDER BY lease_until`;
const PRIVATE = `SELECT * FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0 AND for_agent = @agent
  AND expires_at > @now::bigint ORDER BY priority, created_at, id LIMIT @limit`;
const PUBLIC = `SELECT * FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0 AND for_agent IS NULL
  AND expires_at > @now::bigint ORDER BY priority, created_at, id LIMIT @limit`;
const COUNT = `SELECT count(*) AS n FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now::bigint`;
// SPEC §11: blocked tasks are not listed, only counted in the header.
const BLOCKED = `SELECT count(*)::int AS n FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open > 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now::bigint`;
const CHANGED = `SELECT * FROM tasks WHERE id IN
  (SELECT task_id FROM events WHERE board = @board AND seq > @since::bigint AND task_id IS NOT NULL LIMIT 2000)`;

export async function inbox(db: Queryable, now: number, q: InboxQuery): Promise<InboxView> {
  // The cursor is read first: a change committed while we read is shown again next time, never lost.
  const cursor = await lastSeq(db);
  const p = { agent: q.agent, board: q.board, now };
  if (q.since === undefined) {
    const claims = await rows<TaskRow>(db, OWN_CLAIMS, p);
    const mine = await rows<TaskRow>(db, PRIVATE, { ...p, limit: q.limit });
    const open = await rows<TaskRow>(db, PUBLIC, { ...p, limit: Math.max(0, q.limit - mine.length) });
    const tasks = [...mine, ...open];
    // Fewer rows than asked for means nothing was cut off: count only when the list is full.
    const total = tasks.length < q.limit ? tasks.length : ((await row<{ n: number }>(db, COUNT, p))?.n ?? 0);
    const blocked = (await row<{ n: number }>(db, BLOCKED, p))?.n ?? 0;
    return {
      cursor,
      claims: claims.map(toTask),
      tasks: tasks.map(toTask),
      more: total - tasks.length,
      gone: [],
      blocked,
    };
  }
  const blocked = (await row<{ n: number }>(db, BLOCKED, p))?.n ?? 0;
  const changed = changedView(
    await rows<TaskRow>(db, CHANGED, { board: q.board, since: q.since }),
    q.agent,
    now,
    q.limit,
    cursor,
  );
  return { ...changed, blocked };
}
