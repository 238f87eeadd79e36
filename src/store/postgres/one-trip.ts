/**
 * One round trip for the hot paths (issue 15): claim-next, claim by id and submit in their common case are
 * each one autocommitted statement — the instant, the due probe, the conditional write, its event under
 * the events lock and the NOTIFY — instead of BEGIN + probe, the statement, the events + COMMIT (3–5 round
 * trips). Claim by id is a CTE here; claim-next and submit are server-side functions (migrations 0005, 0006).
 * Whenever the common case does not hold (something is due, a loss to explain, files to lock or free,
 * dependents to tell) the statement changes nothing and says so; the store then takes its general path.
 */
import type { ClaimGrant, CoordEvent, Task } from '../../core/model.js';
import type { ClaimCommand, ClaimNextCommand, SubmitCommand, TreeToVerify } from '../../core/ports.js';
import type { NewEvent } from '../shared/new-event.js';
import { type TaskRow, toGrant, toTask, treeToVerify } from '../shared/rows.js';
import { taskClaimed, taskFinished } from '../shared/task-events.js';
import type { Queryable } from './database.js';
import { DB_NOW, dueAt } from './due.js';
import { claimedDataSql } from './event-sql.js';
import { row } from './sql.js';
import { NOTIFY_APPENDED, SERIALISE_EVENTS } from './tx.js';

const SET_CLAIMED = `SET state = 'claimed', claimed_by = @agent, claim_id = @claim_id, lease_until = d.now + @lease_ms::bigint,
      attempts = t.attempts + 1, updated_at = d.now, claim_session = @session_id, claim_lease_ms = @lease_ms::bigint,
      claim_end = NULL`;

/** The claim's event, its lock and the NOTIFY, over a `claimed` CTE; then the answer row joined to `d`. */
const CLAIM_TAIL = `serial AS (SELECT ${SERIALISE_EVENTS} FROM claimed),
  appended AS (
    INSERT INTO events (board, type, task_id, agent, at, data)
    SELECT c.board, 'task.claimed', c.id, c.claimed_by, c.updated_at, ${claimedDataSql('c')}
    FROM claimed AS c, serial
    RETURNING *),
  ${NOTIFY_APPENDED}`;

const INSTANT = `n AS (SELECT COALESCE(@now::bigint, ${DB_NOW}) AS now),
  d AS (SELECT n.now, ${dueAt('n.now')} AS due FROM n)`;

// Claim by id, rule 1: the same conditional UPDATE as claim.ts; a miss (or anything due) goes the general way.
export const CLAIM_ONE = `WITH ${INSTANT},
  claimed AS (
    UPDATE tasks AS t ${SET_CLAIMED} FROM d
    WHERE NOT d.due AND t.id = @task_id AND t.state = 'queued' AND t.expires_at > d.now
      AND (t.for_agent IS NULL OR t.for_agent = @agent) AND t.blockers_open = 0
    RETURNING t.*),
  ${CLAIM_TAIL}
SELECT d.now AS look_now, d.due AS look_due, x.*
FROM d LEFT JOIN (SELECT row_to_json(claimed) AS task, appended.seq AS event_seq
                  FROM claimed, appended, notified) AS x ON true`;

// The task comes back as one json column (node-postgres parses it with JSON.parse), not 30: building a
// parser per column of every answer was a tenth of the daemon's time per claim (issue 15 profile).
type ClaimAnswer = {
  look_now: number;
  look_due: boolean;
  task: TaskRow | null;
  event_seq: number | null;
};

/**
 * The event a statement appended, as the feed publishes it: built by the same builder as every other path
 * (store/shared/task-events.ts); the statement stored the same payload from event-sql.ts.
 */
const appended = (e: NewEvent, seq: number, at: number): CoordEvent => ({
  seq,
  type: e.type,
  board: e.board,
  task_id: e.task_id ?? null,
  lock_id: e.lock_id ?? null,
  agent: e.agent ?? null,
  at: new Date(at).toISOString(),
  data: e.data,
});

export type OneTrip<T> =
  | { done: true; value: T; event: CoordEvent }
  /** Nothing changed: `due` — move due rows first; `claimable` — look again; else the general path / none. */
  | { done: false; due: boolean; claimable: boolean };

const claimParams = (cmd: ClaimCommand | ClaimNextCommand, now: number | null) => ({
  agent: cmd.agent,
  claim_id: cmd.claim_id,
  lease_ms: cmd.lease_ms,
  session_id: cmd.session_id,
  now,
});

function claimAnswer(r: ClaimAnswer | undefined): OneTrip<ClaimGrant> {
  if (!r) throw new Error('claim statement returned no row');
  const { look_now, look_due, event_seq, task: t } = r;
  if (event_seq === null || t === null) return { done: false, due: look_due, claimable: false };
  return { done: true, value: toGrant(t, false), event: appended(taskClaimed(t), event_seq, look_now) };
}

// Claim-next is a server-side function (migration 0005): its looks are plain reads, so an empty claim-next
// takes no row or write lock — one statement with an UPDATE in it would take the table's write lock even
// when it claims nothing.
const CLAIM_NEXT_ONE = `SELECT r.outcome, r.event_seq, r.event_at, row_to_json(r.task) AS task
  FROM coord_claim_next(@board, @agent, @kinds::text[], @labels::text[], @claim_id, @lease_ms::bigint, @session_id,
                        @now::bigint) AS r`;

export async function claimNextOne(
  db: Queryable,
  now: number | null,
  cmd: ClaimNextCommand,
): Promise<OneTrip<ClaimGrant>> {
  const r = await row<{ outcome: string; task: TaskRow; event_seq: number; event_at: number }>(db, CLAIM_NEXT_ONE, {
    ...claimParams(cmd, now),
    board: cmd.board,
    kinds: cmd.kinds,
    labels: cmd.labels,
  });
  if (!r) throw new Error('coord_claim_next returned no row');
  const { outcome, event_seq, event_at, task } = r;
  if (outcome !== 'done') return { done: false, due: outcome === 'due', claimable: outcome === 'retry' };
  return { done: true, value: toGrant(task, false), event: appended(taskClaimed(task), event_seq, event_at) };
}

export async function claimOne(db: Queryable, now: number | null, cmd: ClaimCommand): Promise<OneTrip<ClaimGrant>> {
  return claimAnswer(await row<ClaimAnswer>(db, CLAIM_ONE, { ...claimParams(cmd, now), task_id: cmd.task_id }));
}

const SUBMIT_ONE = `SELECT r.outcome, r.event_seq, r.event_at, r.integrated, row_to_json(r.task) AS task
  FROM coord_submit(@task_id, @claim_id, @status, @result, @result_hash, @now::bigint,
                    @unless_tree::boolean) AS r`;

/** The function's "the general path must do this one" (migration 0005): nothing was changed. */
const SLOW_PATH = 'CO001';

export async function submitOne(
  db: Queryable,
  now: number | null,
  cmd: SubmitCommand,
): Promise<OneTrip<{ task: Task; replayed: boolean; integrated: boolean }> & { tree?: TreeToVerify }> {
  let r: { outcome: string; task: TaskRow; event_seq: number; event_at: number; integrated: boolean } | undefined;
  try {
    r = await row(db, SUBMIT_ONE, {
      task_id: cmd.task_id,
      claim_id: cmd.claim_id,
      status: cmd.status,
      result: JSON.stringify(cmd.result ?? null),
      result_hash: cmd.result_hash,
      now,
      unless_tree: cmd.unless_tree === true,
    });
  } catch (e) {
    if ((e as { code?: string }).code === SLOW_PATH) return { done: false, due: false, claimable: false };
    throw e;
  }
  // The claim recorded its work tree (migration 0017): core verifies it first; nothing was written.
  const tree = r?.outcome === 'tree' ? treeToVerify(r.task, cmd, Number.NEGATIVE_INFINITY) : null;
  if (tree) return { done: false, due: false, claimable: false, tree };
  if (r?.outcome !== 'done') return { done: false, due: false, claimable: false };
  const { event_seq, event_at, task, integrated } = r;
  const event = appended(taskFinished(task, cmd.status), event_seq, event_at);
  return { done: true, value: { task: toTask(task), replayed: false, integrated }, event };
}
