/**
 * SPEC §11 on PostgreSQL: edges and readiness (plans: plans.ts), each inside the caller's
 * READ COMMITTED transaction. Every row an edge names is locked before it is
 * checked (FOR NO KEY UPDATE, in id order), so a blocker cannot complete
 * between "it is open" and "count it open": the completion's UPDATE waits for
 * our commit, then its next statement sees our edge and counts it down. Edge
 * changes on one board take an advisory lock, so two requests cannot each add
 * half of a cycle. A refused request returns before its first write.
 */

import { openBlockers as shownOpen } from '../../core/board/blockers.js';
import { cycleThrough } from '../../core/board/dependency-graph.js';
import type { Blocker, BlockerState, Task } from '../../core/model.js';
import type { Lost, Outcome, SetDepsCommand } from '../../core/ports.js';
import { checkLinkRows, LINK_COLUMNS, type LinkedBlocker, type LinkRow, type Links } from '../shared/deps-rows.js';
import {
  addedEdges,
  becameReady,
  blockedList,
  checkBlockerCount,
  depsChange,
  edgeMap,
  openDelta,
  statesOf,
} from '../shared/deps-rules.js';
import { completedWork, readyEvent } from '../shared/landed.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import type { Queryable } from './database.js';
import { LANDED_SQL } from './landed-sql.js';
import { inTx } from './runner.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

// Locking a blocker's row orders this request against its landing (landed.ts), which writes that row.
const LOCK_LINKS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id = ANY (@ids::text[]) ORDER BY t.id FOR NO KEY UPDATE OF t`;
const STATES = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id = ANY (@ids::text[])`;

export async function linkRows(db: Queryable, ids: readonly string[], lock: boolean): Promise<Map<string, LinkRow>> {
  if (ids.length === 0) return new Map();
  const found = await rows<LinkRow>(db, lock ? LOCK_LINKS : STATES, { ids: [...new Set(ids)] });
  return new Map(found.map((r) => [r.id, r]));
}

/** The blockers and parent of a task about to be created: each exists, is on its board and visible (locked). */
export async function checkLinks(
  tx: Tx,
  board: string,
  agent: string,
  blockers: readonly string[],
  parent: string | null,
): Promise<{ ok: true; links: Links } | Lost> {
  const ids = parent === null ? blockers : [...blockers, parent];
  return checkLinkRows(await linkRows(tx.db, ids, true), board, agent, blockers, parent);
}

export async function insertEdges(tx: Tx, taskId: string, blockers: readonly LinkedBlocker[]): Promise<void> {
  if (blockers.length === 0) return;
  await tx.db.query({
    text: `INSERT INTO task_deps (task_id, blocker_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
    values: [taskId, blockers.map((b) => b.id)],
  });
}

const REACHABLE = `WITH RECURSIVE reach(id) AS (
    SELECT unnest(@ids::text[])
    UNION SELECT d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id)
  SELECT d.task_id, d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id`;

const reachable = async (db: Queryable, from: readonly string[]): Promise<Map<string, string[]>> =>
  edgeMap(await rows<{ task_id: string; blocker_id: string }>(db, REACHABLE, { ids: from }));

const SERIALISE_DEPS = "SELECT pg_advisory_xact_lock(hashtext('coord.deps'), hashtext(@board))";

/** Adds and removes blockers of one task: all checks first, then the writes (SPEC §11). */
export async function setDeps(tx: Tx, cmd: SetDepsCommand): Promise<Outcome<{ task: Task }>> {
  const peek = await row<{ board: string }>(tx.db, 'SELECT board FROM tasks WHERE id = @id', { id: cmd.task_id });
  if (!peek) return { ok: false, reason: 'not_found' };
  // Two requests adding the two halves of a cycle: the second waits here, then sees the first's edge.
  if (cmd.add.length > 0) await row(tx.db, SERIALISE_DEPS, { board: peek.board });
  const task = await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id FOR NO KEY UPDATE', { id: cmd.task_id });
  const change = depsChange(task, cmd, task ? blockedList(task) : [], tx.now);
  if ('ok' in change) return change;
  const { removed, added } = change;
  let states = new Map<string, LinkRow>();
  if (added.length > 0) {
    states = await linkRows(tx.db, added, true);
    const checked = checkLinkRows(states, task!.board, cmd.agent, added, null);
    if (!checked.ok) return checked;
    const cycle = cycleThrough(await reachable(tx.db, added), task!.id, added);
    if (cycle) return { ok: false, reason: 'dependency_cycle', cycle };
  }
  checkBlockerCount(change.after.length);
  if (removed.length === 0 && added.length === 0) return { ok: true, task: toTask(task!) };
  for (const [id, r] of await linkRows(tx.db, removed, true)) states.set(id, r);
  if (removed.length > 0) {
    await tx.db.query({
      text: 'DELETE FROM task_deps WHERE task_id = $1 AND blocker_id = ANY ($2::text[])',
      values: [task!.id, removed],
    });
  }
  await insertEdges(tx, task!.id, addedEdges(states, change));
  const r = (await row<TaskRow>(
    tx.db,
    `UPDATE tasks SET blocked_by = @blocked_by::text[], blockers_open = blockers_open + @delta::int, updated_at = @now::bigint
     WHERE id = @id RETURNING *`,
    { id: task!.id, blocked_by: change.after, delta: openDelta(states, change), now: tx.now },
  ))!;
  if (becameReady(task!, r)) appendEvent(tx, readyEvent(r, cmd.agent, null));
  return { ok: true, task: toTask(r) };
}

/**
 * In the transaction that completes `r`: work with no commits has landed, so each task it was the last open
 * blocker of becomes ready; work with commits lands when its merge is recorded (landed.ts). A failed,
 * cancelled or expired blocker never gets here: its dependents stay blocked.
 */
export async function blockerCompleted(tx: Tx, r: TaskRow, commits: boolean): Promise<void> {
  await inTx(tx, LANDED_SQL, (q) => completedWork(q, r, commits));
  if (r.parent !== null) {
    await row(tx.db, 'UPDATE tasks SET children_completed = children_completed + 1 WHERE id = @id', { id: r.parent });
  }
}

/** The states of these tasks now (unknown ids left out). */
export const taskStates = async (db: Queryable, ids: readonly string[]): Promise<BlockerState[]> =>
  statesOf(ids, await linkRows(db, ids, false));

/** The blockers of `r` that are not completed, with their states. */
export const openBlockers = async (db: Queryable, r: TaskRow): Promise<Blocker[]> =>
  shownOpen(await taskStates(db, blockedList(r)));
