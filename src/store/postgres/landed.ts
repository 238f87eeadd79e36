/**
 * SPEC §11 "ready = landed" on PostgreSQL, the twin of sqlite/landed.ts. A blocker counts on its dependents
 * once, when it lands: at a completion with no commits (or on a board with `--ready-on completed`), else when
 * its merge is recorded. `landed_at` is set by one conditional UPDATE of the blocker's row: two landings of
 * one task (a merge recorded twice, a person's merge found while the integrator records its own) queue on
 * that row lock, and the second finds it set and counts nothing. A dependent being claimed meanwhile is
 * decided by its own row: the claim's `blockers_open = 0` and the count-down both write that row, so one
 * waits for the other and sees its result.
 */
import type { ReadyOn } from '../../core/model.js';
import { containedEvent, type IntegrationRow, toldMessage } from '../shared/integration-rows.js';
import { sendMessage } from '../shared/messages.js';
import type { Queryable } from './database.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

/** task.ready: claim-next may take it now; wakes long-poll claimers like task.created. */
export function taskReady(tx: Tx, r: { id: string; board: string }, agent: string | null, after: string | null): void {
  appendEvent(tx, { type: 'task.ready', board: r.board, task_id: r.id, agent, data: after ? { after } : {} });
}

const LAND = `UPDATE tasks SET landed_at = @now::bigint
  WHERE id = @id AND state = 'completed' AND landed_at IS NULL RETURNING id`;

// A separate statement after LAND: in READ COMMITTED it sees every edge committed before LAND took the
// blocker's row lock, including one whose request waited for that lock (deps.ts locks the blockers it counts).
// Dependents are locked in id order, so two landings sharing dependents queue instead of deadlocking.
const COUNT_DOWN = `WITH d AS (
    SELECT t.id FROM tasks AS t JOIN task_deps AS e ON e.task_id = t.id
    WHERE e.blocker_id = @id AND t.state IN ('queued', 'claimed')
    ORDER BY t.id FOR NO KEY UPDATE OF t)
  UPDATE tasks AS t SET blockers_open = t.blockers_open - 1, updated_at = @now::bigint FROM d WHERE t.id = d.id
  RETURNING t.id, t.board, t.state, t.blockers_open`;

/**
 * `id` (completed) has landed: each task it blocked has one open blocker fewer, and those it was the last
 * open blocker of become ready, with task.ready — in this transaction. Once per task; false if it had already.
 */
export async function landed(tx: Tx, id: string, agent: string | null): Promise<boolean> {
  if (!(await row(tx.db, LAND, { id, now: tx.now }))) return false;
  const dependents = await rows<{ id: string; board: string; state: string; blockers_open: number }>(
    tx.db,
    COUNT_DOWN,
    { id, now: tx.now },
  );
  for (const d of dependents) if (d.blockers_open === 0 && d.state === 'queued') taskReady(tx, d, agent, id);
  return true;
}

/** The board's readiness rule (landed unless `coord target --ready-on completed` said otherwise). */
export const readyOn = async (db: Queryable, board: string): Promise<ReadyOn> =>
  (await row<{ ready_on: ReadyOn }>(db, 'SELECT ready_on FROM board_repos WHERE board = @board', { board }))
    ?.ready_on ?? 'landed';

/** At a completion: work with no commits has landed at once; work with commits once merged (SPEC §11). */
export async function completedWork(
  tx: Tx,
  r: { id: string; board: string; claimed_by: string | null },
  commits: boolean,
): Promise<void> {
  if (!commits || (await readyOn(tx.db, r.board)) === 'completed') await landed(tx, r.id, r.claimed_by);
}

/** The board now follows `--ready-on completed`: its completed work that has not landed lands now. */
export async function landCompleted(tx: Tx, board: string): Promise<void> {
  const waiting = await rows<{ id: string }>(
    tx.db,
    "SELECT id FROM tasks WHERE board = @board AND state = 'completed' AND landed_at IS NULL ORDER BY id",
    { board },
  );
  for (const w of waiting) await landed(tx, w.id, null);
}

const CONTAINED = `UPDATE integrations SET state = 'merged', reason = NULL, commit_sha = @head, tried_head = @head,
    target = @target, updated_at = @now::bigint
  WHERE task_id = @task_id AND state <> 'merged' AND head = @head RETURNING *`;

/**
 * A person merged it (SPEC §11): the task's head was found in the target with no integrator — recorded merged
 * (`how: contained`), its worker told, its dependents counted. Nothing changes if it was merged meanwhile.
 */
export async function recordContained(tx: Tx, c: { task_id: string; head: string; target: string }): Promise<boolean> {
  const r = await row<IntegrationRow>(tx.db, CONTAINED, { ...c, now: tx.now });
  if (!r) return false;
  appendEvent(tx, containedEvent(r.board, c));
  const worker = await row<{ claimed_by: string | null; created_by: string }>(
    tx.db,
    'SELECT claimed_by, created_by FROM tasks WHERE id = @task_id',
    c,
  );
  const told = toldMessage(r, worker ? (worker.claimed_by ?? worker.created_by) : null);
  if (told) await inTx(tx, MESSAGES_SQL, (q) => sendMessage(q, told));
  await landed(tx, c.task_id, 'coord');
  return true;
}
