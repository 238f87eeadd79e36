/**
 * SPEC §11 on SQLite: edges and readiness (plans: plans.ts). Every function runs inside
 * the caller's BEGIN IMMEDIATE transaction, so the checks it reads cannot be
 * overtaken before its writes: a refused request returns before writing.
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
import type { Db } from './database.js';
import { LANDED_SQL } from './landed-sql.js';
import { inTx } from './runner.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const LINK_ROWS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id IN (SELECT value FROM json_each(?))`;

export function linkRows(db: Db, ids: readonly string[]): Map<string, LinkRow> {
  if (ids.length === 0) return new Map();
  const found = stmt(db, LINK_ROWS).all(JSON.stringify(ids)) as LinkRow[];
  return new Map(found.map((r) => [r.id, r]));
}

/** The blockers and parent of a task about to be created: each exists, is on its board and visible. */
export function checkLinks(
  tx: Tx,
  board: string,
  agent: string,
  blockers: readonly string[],
  parent: string | null,
): { ok: true; links: Links } | Lost {
  const ids = parent === null ? blockers : [...blockers, parent];
  return checkLinkRows(linkRows(tx.db, ids), board, agent, blockers, parent);
}

export function insertEdges(tx: Tx, taskId: string, blockers: readonly LinkedBlocker[]): void {
  const insert = stmt(tx.db, 'INSERT OR IGNORE INTO task_deps (task_id, blocker_id) VALUES (?, ?)');
  for (const b of blockers) insert.run(taskId, b.id);
}

// Every edge reachable from the given tasks along blocked_by: the part of the graph a new edge could close a cycle in.
const REACHABLE = `WITH RECURSIVE reach(id) AS (
    SELECT value FROM json_each(?)
    UNION SELECT d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id)
  SELECT d.task_id, d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id`;

const reachable = (db: Db, from: readonly string[]): Map<string, string[]> =>
  edgeMap(stmt(db, REACHABLE).all(JSON.stringify(from)) as { task_id: string; blocker_id: string }[]);

export const rowOf = (db: Db, id: string) =>
  stmt(db, 'SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;

/** Blockers about to be added: each exists, is on the task's board and visible, and closes no cycle. */
function checkAdded(tx: Tx, task: TaskRow, agent: string, added: string[]): Lost | null {
  if (added.length === 0) return null;
  const checked = checkLinks(tx, task.board, agent, added, null);
  if (!checked.ok) return checked;
  const cycle = cycleThrough(reachable(tx.db, added), task.id, added);
  return cycle ? { ok: false, reason: 'dependency_cycle', cycle } : null;
}

/** Adds and removes blockers of one task: all checks first, then the writes (SPEC §11). */
export function setDeps(tx: Tx, cmd: SetDepsCommand): Outcome<{ task: Task }> {
  const task = rowOf(tx.db, cmd.task_id);
  const change = depsChange(task, cmd, task ? blockedList(task) : [], tx.now);
  if ('ok' in change) return change;
  const lost = checkAdded(tx, task!, cmd.agent, change.added);
  if (lost) return lost;
  checkBlockerCount(change.after.length);
  if (change.removed.length === 0 && change.added.length === 0) return { ok: true, task: toTask(task!) };
  const states = linkRows(tx.db, [...change.removed, ...change.added]);
  const del = stmt(tx.db, 'DELETE FROM task_deps WHERE task_id = ? AND blocker_id = ?');
  for (const id of change.removed) del.run(task!.id, id);
  insertEdges(tx, task!.id, addedEdges(states, change));
  const row = stmt(
    tx.db,
    `UPDATE tasks SET blocked_by = @blocked_by, blockers_open = blockers_open + @delta, updated_at = @now
     WHERE id = @id RETURNING *`,
  ).get({
    id: task!.id,
    blocked_by: JSON.stringify(change.after),
    delta: openDelta(states, change),
    now: tx.now,
  }) as TaskRow;
  if (becameReady(task!, row)) appendEvent(tx, readyEvent(row, cmd.agent, null));
  return { ok: true, task: toTask(row) };
}

/**
 * In the transaction that completes `r`: work with no commits has landed, so each task it was the last open
 * blocker of becomes ready; work with commits lands when its merge is recorded (landed.ts). A failed,
 * cancelled or expired blocker never gets here: its dependents stay blocked.
 */
export function blockerCompleted(tx: Tx, r: TaskRow, commits: boolean): void {
  inTx(tx, LANDED_SQL, (q) => completedWork(q, r, commits));
  if (r.parent !== null) {
    stmt(tx.db, 'UPDATE tasks SET children_completed = children_completed + 1 WHERE id = ?').run(r.parent);
  }
}

/** The states of these tasks now, landed or not (unknown ids left out). */
export const taskStates = (db: Db, ids: readonly string[]): BlockerState[] => statesOf(ids, linkRows(db, ids));

/** The blockers of `r` that have not landed, with their states (and integration). */
export const openBlockers = (db: Db, r: TaskRow): Blocker[] => shownOpen(taskStates(db, blockedList(r)));
