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
import { DUE_PROBE_TERM as DUE } from './due.js';
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

/**
 * The common poll — nothing of the agent's, nothing it may claim or that changed — answered by one statement
 * (each statement costs ~10–30 µs here, more than the index lookups in it): the cursor, whether the full look
 * is needed, the blocked count, whether the agent has open messages, and the lazy-expiry due probe.
 */
const PROBE = (since: boolean) => `SELECT (SELECT COALESCE(MAX(seq), 0) FROM events) AS cursor,
  ${
    since
      ? 'EXISTS (SELECT 1 FROM events WHERE board = @board AND seq > @since AND task_id IS NOT NULL)'
      : `EXISTS (SELECT 1 FROM tasks WHERE claimed_by = @agent AND board = @board AND state = 'claimed')
    OR EXISTS (SELECT 1 FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0
                 AND for_agent = @agent AND expires_at > @now)
    OR EXISTS (SELECT 1 FROM tasks WHERE board = @board AND state = 'queued' AND blockers_open = 0
                 AND for_agent IS NULL AND expires_at > @now)`
  } AS look,
  (${BLOCKED}) AS blocked,
  EXISTS (SELECT 1 FROM message_receipts WHERE recipient = @agent AND board = @board AND acked_at IS NULL) AS mail,
  ${DUE} AS due`;
const PROBES = [PROBE(false), PROBE(true)] as const;

interface ProbeRow {
  cursor: number;
  look: number;
  blocked: number;
  mail: number;
  due: number;
}

/**
 * One statement first: `due` when a lease or ttl has lapsed and must be moved before anything is read (pass
 * `checkDue: false` once that was tried); else the view when it is empty, or null when the full look is needed.
 * `mail` is whether the agent has unacknowledged messages on the board.
 */
export function quickInbox(
  db: Db,
  now: number,
  q: InboxQuery,
  checkDue: boolean,
): 'due' | { view: InboxView | null; mail: boolean } {
  const r = stmt(db, PROBES[q.since === undefined ? 0 : 1]).get({
    agent: q.agent,
    board: q.board,
    now,
    ...(q.since === undefined ? {} : { since: q.since }),
  }) as ProbeRow;
  if (checkDue && r.due === 1) return 'due';
  const mail = r.mail === 1;
  if (r.look === 1) return { view: null, mail };
  return { view: { cursor: r.cursor, claims: [], tasks: [], more: 0, gone: [], blocked: r.blocked }, mail };
}

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
