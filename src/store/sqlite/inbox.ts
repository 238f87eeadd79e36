/**
 * The inbox (SPEC §6) as data: the agent's own claims, then the queued tasks it
 * may claim — its private ones first, then the board's by priority and age.
 * With `since`, only tasks that changed after that cursor, plus those that
 * left the view. Read-only.
 */
import type { InboxQuery, InboxView } from '../../core/ports.js';
import { changedView } from '../shared/inbox-changes.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import type { Db } from './database.js';
import { lastSeq } from './read.js';
import { stmt } from './tx.js';

const OWN_CLAIMS = `SELECT * FROM tasks WHERE claimed_by = @agent AND board = @board AND state = 'claimed'
  ORDER BY lease_until`;
const PRIVATE = `SELECT * FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0 AND for_agent = @agent
  AND expires_at > @now ORDER BY priority, created_at, id LIMIT @limit`;
const PUBLIC = `SELECT * FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0 AND for_agent IS NULL
  AND expires_at > @now ORDER BY priority, created_at, id LIMIT @limit`;
const COUNT = `SELECT count(*) AS n FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now`;
// SPEC §11: blocked tasks are not listed, only counted in the header.
const BLOCKED = `SELECT count(*) AS n FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open > 0
  AND (for_agent IS NULL OR for_agent = @agent) AND expires_at > @now`;
const CHANGED = `SELECT * FROM tasks WHERE id IN
  (SELECT task_id FROM events WHERE board = @board AND seq > @since AND task_id IS NOT NULL LIMIT 2000)`;

export function inbox(db: Db, now: number, q: InboxQuery): InboxView {
  const cursor = lastSeq(db);
  const p = { agent: q.agent, board: q.board, now, limit: q.limit };
  if (q.since === undefined) {
    const claims = stmt(db, OWN_CLAIMS).all(p) as TaskRow[];
    const mine = stmt(db, PRIVATE).all(p) as TaskRow[];
    const open = stmt(db, PUBLIC).all({ ...p, limit: Math.max(0, q.limit - mine.length) }) as TaskRow[];
    const tasks = [...mine, ...open];
    // Fewer rows than asked for means nothing was cut off: count only when the list is full.
    const total = tasks.length < q.limit ? tasks.length : (stmt(db, COUNT).get(p) as { n: number }).n;
    const view = { cursor, claims: claims.map(toTask), tasks: tasks.map(toTask), more: total - tasks.length, gone: [] };
    return { ...view, blocked: blockedCount(db, p) };
  }
  const changed = changedView(
    stmt(db, CHANGED).all({ ...p, since: q.since }) as TaskRow[],
    q.agent,
    now,
    q.limit,
    cursor,
  );
  return { ...changed, blocked: blockedCount(db, p) };
}

const blockedCount = (db: Db, p: object): number => (stmt(db, BLOCKED).get(p) as { n: number }).n;
