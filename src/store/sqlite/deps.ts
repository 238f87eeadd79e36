/**
 * SPEC §11 on SQLite: edges, readiness and plans. Every function runs inside
 * the caller's BEGIN IMMEDIATE transaction, so the checks it reads cannot be
 * overtaken before its writes: a refused request returns before writing.
 */

import { openBlockers as shownOpen } from '../../core/blockers.js';
import { cycleThrough } from '../../core/dependency-graph.js';
import { CoordError } from '../../core/errors.js';
import { type Blocker, type BlockerState, isTerminal, MAX_BLOCKERS, type Task } from '../../core/model.js';
import type { Lost, Outcome, PlanCommand, SetDepsCommand } from '../../core/ports.js';
import { explainNotQueued } from '../../core/rules.js';
import {
  blockerState,
  checkLinkRows,
  LINK_COLUMNS,
  type LinkedBlocker,
  type LinkRow,
  type Links,
  linked,
} from '../shared/deps-rows.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type TaskRow, toFacts, toTask } from '../shared/rows.js';
import { rowVisibleTo } from '../shared/visibility.js';
import { insertTask } from './create-task.js';
import type { Db } from './database.js';
import { completedWork, taskReady } from './landed.js';
import { stmt, type Tx } from './tx.js';

const LINK_ROWS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id IN (SELECT value FROM json_each(?))`;

function linkRows(db: Db, ids: readonly string[]): Map<string, LinkRow> {
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

function reachable(db: Db, from: readonly string[]): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const e of stmt(db, REACHABLE).all(JSON.stringify(from)) as { task_id: string; blocker_id: string }[]) {
    const list = edges.get(e.task_id);
    if (list) list.push(e.blocker_id);
    else edges.set(e.task_id, [e.blocker_id]);
  }
  return edges;
}

const rowOf = (db: Db, id: string) => stmt(db, 'SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;

/** Blockers about to be added: each exists, is on the task's board and visible, and closes no cycle. */
function checkAdded(tx: Tx, task: TaskRow, agent: string, added: string[]): Lost | null {
  if (added.length === 0) return null;
  const checked = checkLinks(tx, task.board, agent, added, null);
  if (!checked.ok) return checked;
  const cycle = cycleThrough(reachable(tx.db, added), task.id, added);
  return cycle ? { ok: false, reason: 'dependency_cycle', cycle } : null;
}

function checkBlockerCount(n: number): void {
  if (n <= MAX_BLOCKERS) return;
  throw new CoordError('invalid_request', `a task may wait for at most ${MAX_BLOCKERS} others (this would make ${n})`, {
    issues: [{ path: 'add', message: `at most ${MAX_BLOCKERS} blockers per task` }],
  });
}

/** Adds and removes blockers of one task: all checks first, then the writes (SPEC §11). */
export function setDeps(tx: Tx, cmd: SetDepsCommand): Outcome<{ task: Task }> {
  const task = rowOf(tx.db, cmd.task_id);
  if (!task || !rowVisibleTo(task, cmd.agent)) {
    return { ok: false, reason: 'not_found' };
  }
  // A task being worked on cannot start waiting for something; a finished one never changes again.
  if ((cmd.add.length > 0 && task.state !== 'queued') || isTerminal(task.state)) {
    return explainNotQueued(toFacts(task), tx.now);
  }
  const before = JSON.parse(task.blocked_by as string) as string[];
  const removed = before.filter((id) => cmd.remove.includes(id));
  const added = cmd.add.filter((id) => !before.includes(id) && !cmd.remove.includes(id));
  const lost = checkAdded(tx, task, cmd.agent, added);
  if (lost) return lost;
  const after = [...before.filter((id) => !removed.includes(id)), ...added];
  checkBlockerCount(after.length);
  if (removed.length === 0 && added.length === 0) return { ok: true, task: toTask(task) };
  const states = linkRows(tx.db, [...removed, ...added]);
  // SPEC §11: a blocker that has not landed holds the task back (one that landed already counted).
  const open = (ids: string[]) => ids.filter((id) => !states.get(id)?.landed).length;
  const del = stmt(tx.db, 'DELETE FROM task_deps WHERE task_id = ? AND blocker_id = ?');
  for (const id of removed) del.run(task.id, id);
  insertEdges(
    tx,
    task.id,
    added.map((id) => linked(states.get(id)!)),
  );
  const row = stmt(
    tx.db,
    `UPDATE tasks SET blocked_by = @blocked_by, blockers_open = blockers_open + @delta, updated_at = @now
     WHERE id = @id RETURNING *`,
  ).get({ id: task.id, blocked_by: JSON.stringify(after), delta: open(added) - open(removed), now: tx.now }) as TaskRow;
  if (task.blockers_open > 0 && row.blockers_open === 0 && row.state === 'queued') taskReady(tx, row, cmd.agent, null);
  return { ok: true, task: toTask(row) };
}

/**
 * In the transaction that completes `r`: work with no commits has landed, so each task it was the last open
 * blocker of becomes ready; work with commits lands when its merge is recorded (landed.ts). A failed,
 * cancelled or expired blocker never gets here: its dependents stay blocked.
 */
export function blockerCompleted(tx: Tx, r: TaskRow, commits: boolean): void {
  completedWork(tx, r, commits);
  if (r.parent !== null) {
    stmt(tx.db, 'UPDATE tasks SET children_completed = children_completed + 1 WHERE id = ?').run(r.parent);
  }
}

/** The states of these tasks now, landed or not (unknown ids left out). */
export function taskStates(db: Db, ids: readonly string[]): BlockerState[] {
  const found = linkRows(db, ids);
  return ids.flatMap((id) => {
    const r = found.get(id);
    return r ? [blockerState(r)] : [];
  });
}

/** The blockers of `r` that have not landed, with their states (and integration). */
export const openBlockers = (db: Db, r: TaskRow): Blocker[] =>
  shownOpen(taskStates(db, JSON.parse(r.blocked_by as string) as string[]));

type PlanMade = { tasks: Record<string, Task>; created: boolean };

/** A plan made before under this key: its tasks as they are now (another payload: a conflict); null when new. */
function replayPlan(tx: Tx, cmd: PlanCommand): Outcome<PlanMade> | null {
  if (cmd.idempotency_key === null) return null;
  const seen = stmt(tx.db, 'SELECT * FROM plans WHERE board = ? AND idempotency_key = ?').get(
    cmd.board,
    cmd.idempotency_key,
  ) as { payload_hash: string; refs: string } | undefined;
  if (!seen) return null;
  const refs = JSON.parse(seen.refs) as Record<string, string>;
  const conflict = idempotencyConflict(seen, cmd.payload_hash, Object.values(refs)[0] ?? '');
  if (conflict) return conflict;
  const tasks: Record<string, Task> = {};
  for (const [ref, id] of Object.entries(refs)) {
    const r = rowOf(tx.db, id);
    if (r) tasks[ref] = toTask(r);
  }
  return { ok: true, tasks, created: false };
}

/** The ids of existing tasks a plan names as blockers or parents, each once. */
function existingNamed(cmd: PlanCommand): string[] {
  const existing = new Set<string>();
  for (const t of cmd.tasks) {
    for (const l of [...t.blocked_by, ...(t.parent ? [t.parent] : [])]) if ('id' in l) existing.add(l.id);
  }
  return [...existing];
}

/** A plan (SPEC §11): its tasks in dependency order, one transaction, all or nothing; replayed by key. */
export function createPlan(tx: Tx, cmd: PlanCommand): Outcome<PlanMade> {
  const replayed = replayPlan(tx, cmd);
  if (replayed) return replayed;
  // Existing tasks the plan names: every one is checked before the first insert.
  const existing = existingNamed(cmd);
  const found = linkRows(tx.db, existing);
  const checked = checkLinkRows(found, cmd.board, cmd.agent, existing, null);
  if (!checked.ok) return checked;
  const ids = new Map<string, string>();
  const resolve = (l: { ref: string } | { id: string }): string => ('id' in l ? l.id : ids.get(l.ref)!);
  const out: Record<string, Task> = {};
  for (const t of cmd.tasks) {
    const blockers = t.blocked_by.map((l) =>
      'id' in l ? linked(found.get(l.id)!) : { id: resolve(l), state: 'queued' as const, landed: false },
    );
    const row = insertTask(
      tx,
      { ...t, board: cmd.board, created_by: cmd.agent, idempotency_key: null, payload_hash: cmd.payload_hash },
      { blockers, parent: t.parent ? resolve(t.parent) : null },
    );
    ids.set(t.ref, row.id);
    out[t.ref] = toTask(row);
  }
  if (cmd.idempotency_key !== null) {
    stmt(
      tx.db,
      'INSERT INTO plans (board, idempotency_key, payload_hash, refs, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(cmd.board, cmd.idempotency_key, cmd.payload_hash, JSON.stringify(Object.fromEntries(ids)), tx.now);
  }
  // A parent created earlier in the plan has counted its children since its row was returned.
  for (const [ref, id] of ids) if (hasChildren(cmd, ref)) out[ref] = toTask(rowOf(tx.db, id)!);
  return { ok: true, tasks: out, created: true };
}

const hasChildren = (cmd: PlanCommand, ref: string): boolean =>
  cmd.tasks.some((t) => t.parent !== null && 'ref' in t.parent && t.parent.ref === ref);
