/**
 * SPEC §11 "ready = landed" on SQLite. A blocker counts on its dependents once, when it lands: at its
 * completion when it has no commits (or its board keeps the old rule, `--ready-on completed`), else when its
 * merge is recorded — by the integrator, or by the background look that finds a person's merge
 * (`how: contained`). `landed_at` marks that the count happened, so a merge recorded twice, or after a
 * completion that already counted, never counts again. Every function runs inside the caller's transaction.
 */
import type { ReadyOn } from '../../core/model.js';
import type { IntegrationRow } from '../shared/integration-rows.js';
import { containedEvent, toldMessage } from '../shared/integration-rows.js';
import { sendMessage } from '../shared/messages.js';
import type { Db } from './database.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import { appendEvent, stmt, type Tx } from './tx.js';

/** task.ready: claim-next may take it now; wakes long-poll claimers like task.created. */
export function taskReady(tx: Tx, r: { id: string; board: string }, agent: string | null, after: string | null): void {
  appendEvent(tx, { type: 'task.ready', board: r.board, task_id: r.id, agent, data: after ? { after } : {} });
}

const LAND = `UPDATE tasks SET landed_at = @now WHERE id = @id AND state = 'completed' AND landed_at IS NULL RETURNING id`;

const COUNT_DOWN = `UPDATE tasks SET blockers_open = blockers_open - 1, updated_at = @now
  WHERE id IN (SELECT task_id FROM task_deps WHERE blocker_id = @id) AND state IN ('queued', 'claimed')
  RETURNING id, board, state, blockers_open`;

/**
 * `id` (completed) has landed: each task it blocked has one open blocker fewer, and those it was the last
 * open blocker of become ready, with task.ready — in this transaction. Once per task; false if it had already.
 */
export function landed(tx: Tx, id: string, agent: string | null): boolean {
  if (!stmt(tx.db, LAND).get({ id, now: tx.now })) return false;
  const dependents = stmt(tx.db, COUNT_DOWN).all({ id, now: tx.now }) as {
    id: string;
    board: string;
    state: string;
    blockers_open: number;
  }[];
  for (const d of dependents) if (d.blockers_open === 0 && d.state === 'queued') taskReady(tx, d, agent, id);
  return true;
}

/** The board's readiness rule (landed unless `coord target --ready-on completed` said otherwise). */
export const readyOn = (db: Db, board: string): ReadyOn =>
  (stmt(db, 'SELECT ready_on FROM board_repos WHERE board = ?').get(board) as { ready_on: ReadyOn } | undefined)
    ?.ready_on ?? 'landed';

/** At a completion: work with no commits has landed at once; work with commits once merged (SPEC §11). */
export function completedWork(tx: Tx, r: { id: string; board: string; claimed_by: string | null }, commits: boolean) {
  if (!commits || readyOn(tx.db, r.board) === 'completed') landed(tx, r.id, r.claimed_by);
}

/** The board now follows `--ready-on completed`: its completed work that has not landed lands now. */
export function landCompleted(tx: Tx, board: string): void {
  const waiting = stmt(tx.db, "SELECT id FROM tasks WHERE board = ? AND state = 'completed' AND landed_at IS NULL").all(
    board,
  ) as { id: string }[];
  for (const w of waiting) landed(tx, w.id, null);
}

const CONTAINED = `UPDATE integrations SET state = 'merged', reason = NULL, commit_sha = @head, tried_head = @head,
    target = @target, updated_at = @now
  WHERE task_id = @task_id AND state <> 'merged' AND head = @head RETURNING *`;

/**
 * A person merged it (SPEC §11): the task's head was found in the target with no integrator — recorded merged
 * (`how: contained`), its worker told, its dependents counted. Nothing changes if it was merged meanwhile.
 */
export function recordContained(tx: Tx, cmd: { task_id: string; head: string; target: string }): boolean {
  const row = stmt(tx.db, CONTAINED).get({ ...cmd, now: tx.now }) as IntegrationRow | undefined;
  if (!row) return false;
  appendEvent(tx, containedEvent(row.board, cmd));
  const worker = stmt(tx.db, 'SELECT claimed_by, created_by FROM tasks WHERE id = ?').get(cmd.task_id) as {
    claimed_by: string | null;
    created_by: string;
  };
  const told = toldMessage(row, worker.claimed_by ?? worker.created_by);
  if (told) inTx(tx, MESSAGES_SQL, (q) => sendMessage(q, told));
  landed(tx, cmd.task_id, 'coord');
  return true;
}
