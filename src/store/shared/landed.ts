/**
 * SPEC §11 "ready = landed" of both stores. A blocker counts on its dependents once, when it lands: at its
 * completion when it has no commits (or its board keeps the old rule, `--ready-on completed`), else when its
 * merge is recorded — by the integrator, or by the background look that finds a person's merge
 * (`how: contained`). `landed_at` is set by one conditional UPDATE of the blocker's row, so a merge recorded
 * twice, or after a completion that already counted, never counts again (PostgreSQL: two landings of one task
 * queue on that row lock, and the second finds it set). Programs (program.ts) run in the caller's transaction;
 * the count-down is each store's own (`<store>/landed-sql.ts`).
 */
import type { ReadyOn } from '../../core/model.js';
import { containedEvent, type IntegrationRow, toldMessage } from './integration-rows.js';
import { sendMessage } from './messages.js';
import type { MessagesSql } from './messages-sql.js';
import type { NewEvent } from './new-event.js';
import { all, emit, get, type Prog, type Q } from './program.js';

export const LANDED_COMMON = {
  land: `UPDATE tasks SET landed_at = @now::bigint
    WHERE id = @id AND state = 'completed' AND landed_at IS NULL RETURNING id`,
  readyOn: 'SELECT ready_on FROM board_repos WHERE board = @board',
  waiting: "SELECT id FROM tasks WHERE board = @board AND state = 'completed' AND landed_at IS NULL ORDER BY id",
  contained: `UPDATE integrations SET state = 'merged', reason = NULL, commit_sha = @head, tried_head = @head,
      target = @target, updated_at = @now::bigint
    WHERE task_id = @task_id AND state <> 'merged' AND head = @head
      AND NOT EXISTS (SELECT 1 FROM integration_slots AS s
        WHERE s.board = integrations.board AND s.lease_until > @now::bigint)
    RETURNING *`,
  worker: 'SELECT claimed_by, created_by FROM tasks WHERE id = @task_id',
};

/** The statements; `countDown` (each of the blocker's open dependents has one open blocker fewer) is the store's. */
export type LandedSql = typeof LANDED_COMMON & { countDown: string; messages: MessagesSql };

/** A store's table of landing: the common statements, its count-down, and its messages' table. */
export const landedSql = (messages: MessagesSql, countDown: string): LandedSql => ({
  ...LANDED_COMMON,
  countDown,
  messages,
});
type W = Q<LandedSql>;

/** task.ready: claim-next may take it now; wakes long-poll claimers like task.created. */
export const readyEvent = (r: { id: string; board: string }, agent: string | null, after: string | null): NewEvent => ({
  type: 'task.ready',
  board: r.board,
  task_id: r.id,
  agent,
  data: after ? { after } : {},
});

/**
 * `id` (completed) has landed: each task it blocked has one open blocker fewer, and those it was the last
 * open blocker of become ready, with task.ready — in this transaction. Once per task; false if it had already.
 */
export function* landed(q: W, id: string, agent: string | null): Prog<boolean> {
  if (!(yield* get(q.sql.land, { id, now: q.now }))) return false;
  type Dependent = { id: string; board: string; state: string; blockers_open: number };
  for (const d of yield* all<Dependent>(q.sql.countDown, { id, now: q.now })) {
    if (d.blockers_open === 0 && d.state === 'queued') yield* emit(readyEvent(d, agent, id));
  }
  return true;
}

/** At a completion: work with no commits has landed at once; work with commits once merged (SPEC §11). */
export function* completedWork(q: W, r: { id: string; board: string; claimed_by: string | null }, commits: boolean) {
  const rule = (yield* get<{ ready_on: ReadyOn }>(q.sql.readyOn, { board: r.board }))?.ready_on ?? 'landed';
  if (!commits || rule === 'completed') yield* landed(q, r.id, r.claimed_by);
}

/** The board now follows `--ready-on completed`: its completed work that has not landed lands now. */
export function* landCompleted(q: W, board: string): Prog<void> {
  for (const w of yield* all<{ id: string }>(q.sql.waiting, { board })) yield* landed(q, w.id, null);
}

/**
 * A person merged it (SPEC §11): the task's head was found in the target with no integrator — recorded merged
 * (`how: contained`), its worker told, its dependents counted. Nothing changes if it was merged meanwhile, or
 * while an integrator holds the board's slot: its own turn finds the head in the target and records it (and a
 * head found there between its swap and its record is its merge, whose commit only it knows).
 */
export function* recordContained(q: W, c: { task_id: string; head: string; target: string }): Prog<boolean> {
  const r = yield* get<IntegrationRow>(q.sql.contained, { ...c, now: q.now });
  if (!r) return false;
  yield* emit(containedEvent(r.board, c));
  const worker = yield* get<{ claimed_by: string | null; created_by: string }>(q.sql.worker, c);
  const told = toldMessage(r, worker ? (worker.claimed_by ?? worker.created_by) : null);
  if (told) yield* sendMessage({ sql: q.sql.messages, now: q.now }, told);
  yield* landed(q, c.task_id, 'coord');
  return true;
}
