/**
 * Claim-next, the hot path for workers on every daemon: two round trips.
 * 1. A read-only look: the instant, whether anything is due, and whether this
 *    agent has anything to claim. An empty claim-next stops here, having
 *    written nothing.
 * 2. One statement, committed on its own: pick the first claimable row with
 *    FOR UPDATE SKIP LOCKED (workers skip rows another transaction is
 *    claiming instead of queueing behind it), claim it with the state
 *    re-checked in the UPDATE, append its task.claimed event under the events
 *    lock (tx.ts) and notify the other daemons. No row wait can happen inside
 *    it, so holding a row while waiting for the events lock cannot deadlock.
 */
import type { ClaimGrant, CoordEvent } from '../../core/model.js';
import type { ClaimNextCommand } from '../../core/ports.js';
import { type TaskRow, toGrant } from '../shared/rows.js';
import { SET_CLAIMED } from './claim.js';
import type { Queryable } from './database.js';
import { DB_NOW, dueAt } from './due.js';
import { row } from './sql.js';
import { NOTIFY_APPENDED, SERIALISE_EVENTS } from './tx.js';

const nextFilter = (now: string) => `board = @board AND state = 'queued' AND blockers_open = 0 AND expires_at > ${now}
  AND (for_agent IS NULL OR for_agent = @agent)
  AND (cardinality(@kinds::text[]) = 0 OR kind = ANY (@kinds::text[]))
  AND (cardinality(@labels::text[]) = 0 OR labels && @labels::text[])`;
const NEXT_ORDER = 'ORDER BY priority, created_at, id LIMIT 1';

export const LOOK_NEXT = `SELECT n.now, ${dueAt('n.now')} AS due,
    EXISTS (SELECT 1 FROM tasks WHERE ${nextFilter('n.now')}) AS claimable
  FROM (SELECT COALESCE(@now::bigint, ${DB_NOW}) AS now) AS n`;

export const CLAIM_NEXT = `WITH next AS (
    SELECT id FROM tasks WHERE ${nextFilter('@now::bigint')} ${NEXT_ORDER} FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE tasks AS t ${SET_CLAIMED} FROM next WHERE t.id = next.id AND t.state = 'queued' AND t.blockers_open = 0 RETURNING t.*),
  serial AS (SELECT ${SERIALISE_EVENTS} FROM claimed),
  appended AS (
    INSERT INTO events (board, type, task_id, agent, at, data)
    SELECT c.board, 'task.claimed', c.id, c.claimed_by, @now::bigint,
           json_build_object('fence', c.attempts, 'lease_until', @lease_iso::text)::text
    FROM claimed AS c, serial
    RETURNING *),
  ${NOTIFY_APPENDED}
SELECT claimed.*, appended.seq AS event_seq, appended.data AS event_data FROM claimed, appended, notified`;

export interface Look {
  now: number;
  due: boolean;
  claimable: boolean;
}

const filterParams = (cmd: ClaimNextCommand) => ({
  board: cmd.board,
  agent: cmd.agent,
  kinds: cmd.kinds,
  labels: cmd.labels,
});

/** Read-only. `now` null: the database clock. */
export const lookNext = async (db: Queryable, now: number | null, cmd: ClaimNextCommand): Promise<Look> =>
  (await row<Look>(db, LOOK_NEXT, { ...filterParams(cmd), now }))!;

/** The claim and its event in one autocommitted statement; null when others took every candidate first. */
export async function claimNext(
  db: Queryable,
  now: number,
  cmd: ClaimNextCommand,
): Promise<{ grant: ClaimGrant; event: CoordEvent } | null> {
  const lease_until = now + cmd.lease_ms;
  const r = await row<TaskRow & { event_seq: number; event_data: string }>(db, CLAIM_NEXT, {
    ...filterParams(cmd),
    claim_id: cmd.claim_id,
    lease_until,
    lease_iso: new Date(lease_until).toISOString(),
    lease_ms: cmd.lease_ms,
    session_id: cmd.session_id,
    now,
  });
  if (!r) return null;
  const { event_seq, event_data, ...task } = r;
  const event: CoordEvent = {
    seq: event_seq,
    type: 'task.claimed',
    board: task.board,
    task_id: task.id,
    lock_id: null,
    agent: task.claimed_by,
    at: new Date(now).toISOString(),
    data: JSON.parse(event_data),
  };
  return { grant: toGrant(task, false), event };
}
