/**
 * SPEC §11 on PostgreSQL: edges, readiness and plans, each inside the caller's
 * READ COMMITTED transaction. Every row an edge names is locked before it is
 * checked (FOR NO KEY UPDATE, in id order), so a blocker cannot complete
 * between "it is open" and "count it open": the completion's UPDATE waits for
 * our commit, then its next statement sees our edge and counts it down. Edge
 * changes on one board take an advisory lock, so two requests cannot each add
 * half of a cycle. A refused request returns before its first write.
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
import type { Queryable } from './database.js';
import { completedWork, taskReady } from './landed.js';
import { row, rows } from './sql.js';
import type { Tx } from './tx.js';

// Locking a blocker's row orders this request against its landing (landed.ts), which writes that row.
const LOCK_LINKS = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id = ANY (@ids::text[]) ORDER BY t.id FOR NO KEY UPDATE OF t`;
const STATES = `SELECT ${LINK_COLUMNS} FROM tasks AS t LEFT JOIN integrations AS i ON i.task_id = t.id
  WHERE t.id = ANY (@ids::text[])`;

async function linkRows(db: Queryable, ids: readonly string[], lock: boolean): Promise<Map<string, LinkRow>> {
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

async function reachable(db: Queryable, from: readonly string[]): Promise<Map<string, string[]>> {
  const edges = new Map<string, string[]>();
  for (const e of await rows<{ task_id: string; blocker_id: string }>(db, REACHABLE, { ids: from })) {
    const list = edges.get(e.task_id);
    if (list) list.push(e.blocker_id);
    else edges.set(e.task_id, [e.blocker_id]);
  }
  return edges;
}

const SERIALISE_DEPS = "SELECT pg_advisory_xact_lock(hashtext('coord.deps'), hashtext(@board))";

/** Adds and removes blockers of one task: all checks first, then the writes (SPEC §11). */
export async function setDeps(tx: Tx, cmd: SetDepsCommand): Promise<Outcome<{ task: Task }>> {
  const peek = await row<{ board: string }>(tx.db, 'SELECT board FROM tasks WHERE id = @id', { id: cmd.task_id });
  if (!peek) return { ok: false, reason: 'not_found' };
  // Two requests adding the two halves of a cycle: the second waits here, then sees the first's edge.
  if (cmd.add.length > 0) await row(tx.db, SERIALISE_DEPS, { board: peek.board });
  const task = await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id FOR NO KEY UPDATE', { id: cmd.task_id });
  if (!task || !rowVisibleTo(task, cmd.agent)) {
    return { ok: false, reason: 'not_found' };
  }
  // A task being worked on cannot start waiting for something; a finished one never changes again.
  if ((cmd.add.length > 0 && task.state !== 'queued') || isTerminal(task.state)) {
    return explainNotQueued(toFacts(task), tx.now);
  }
  const before = task.blocked_by as string[];
  const removed = before.filter((id) => cmd.remove.includes(id));
  const added = cmd.add.filter((id) => !before.includes(id) && !cmd.remove.includes(id));
  let states = new Map<string, LinkRow>();
  if (added.length > 0) {
    states = await linkRows(tx.db, added, true);
    const checked = checkLinkRows(states, task.board, cmd.agent, added, null);
    if (!checked.ok) return checked;
    const cycle = cycleThrough(await reachable(tx.db, added), task.id, added);
    if (cycle) return { ok: false, reason: 'dependency_cycle', cycle };
  }
  const after = [...before.filter((id) => !removed.includes(id)), ...added];
  if (after.length > MAX_BLOCKERS) {
    throw new CoordError(
      'invalid_request',
      `a task may wait for at most ${MAX_BLOCKERS} others (this would make ${after.length})`,
      { issues: [{ path: 'add', message: `at most ${MAX_BLOCKERS} blockers per task` }] },
    );
  }
  if (removed.length === 0 && added.length === 0) return { ok: true, task: toTask(task) };
  for (const [id, r] of await linkRows(tx.db, removed, true)) states.set(id, r);
  // SPEC §11: a blocker that has not landed holds the task back (one that landed already counted).
  const open = (ids: string[]) => ids.filter((id) => !states.get(id)?.landed).length;
  if (removed.length > 0) {
    await tx.db.query({
      text: 'DELETE FROM task_deps WHERE task_id = $1 AND blocker_id = ANY ($2::text[])',
      values: [task.id, removed],
    });
  }
  await insertEdges(
    tx,
    task.id,
    added.map((id) => linked(states.get(id)!)),
  );
  const r = (await row<TaskRow>(
    tx.db,
    `UPDATE tasks SET blocked_by = @blocked_by::text[], blockers_open = blockers_open + @delta::int, updated_at = @now::bigint
     WHERE id = @id RETURNING *`,
    { id: task.id, blocked_by: after, delta: open(added) - open(removed), now: tx.now },
  ))!;
  if (task.blockers_open > 0 && r.blockers_open === 0 && r.state === 'queued') taskReady(tx, r, cmd.agent, null);
  return { ok: true, task: toTask(r) };
}

/**
 * In the transaction that completes `r`: work with no commits has landed, so each task it was the last open
 * blocker of becomes ready; work with commits lands when its merge is recorded (landed.ts). A failed,
 * cancelled or expired blocker never gets here: its dependents stay blocked.
 */
export async function blockerCompleted(tx: Tx, r: TaskRow, commits: boolean): Promise<void> {
  await completedWork(tx, r, commits);
  if (r.parent !== null) {
    await row(tx.db, 'UPDATE tasks SET children_completed = children_completed + 1 WHERE id = @id', { id: r.parent });
  }
}

/** The states of these tasks now (unknown ids left out). */
export async function taskStates(db: Queryable, ids: readonly string[]): Promise<BlockerState[]> {
  const found = await linkRows(db, ids, false);
  return ids.flatMap((id) => {
    const r = found.get(id);
    return r ? [blockerState(r)] : [];
  });
}

/** The blockers of `r` that are not completed, with their states. */
export const openBlockers = async (db: Queryable, r: TaskRow): Promise<Blocker[]> =>
  shownOpen(await taskStates(db, r.blocked_by as string[]));

const PLAN_BY_KEY = 'SELECT payload_hash, refs FROM plans WHERE board = @board AND idempotency_key = @key';
const INSERT_PLAN = `INSERT INTO plans (board, idempotency_key, payload_hash, refs, created_at)
  VALUES (@board, @key, @hash, @refs::jsonb, @now::bigint) ON CONFLICT DO NOTHING RETURNING board`;

/** A plan (SPEC §11): its tasks in dependency order, one transaction, all or nothing; replayed by key. */
export async function createPlan(
  tx: Tx,
  cmd: PlanCommand,
): Promise<Outcome<{ tasks: Record<string, Task>; created: boolean }>> {
  const key = cmd.idempotency_key;
  if (key !== null) {
    const seen = await replay(tx, cmd, key);
    if (seen) return seen;
  }
  const existing = new Set<string>();
  for (const t of cmd.tasks) {
    for (const l of [...t.blocked_by, ...(t.parent ? [t.parent] : [])]) if ('id' in l) existing.add(l.id);
  }
  const found = await linkRows(tx.db, [...existing], true);
  const checked = checkLinkRows(found, cmd.board, cmd.agent, [...existing], null);
  if (!checked.ok) return checked;
  if (key !== null) {
    // Claims the key first: a concurrent post of the same plan waits on this row, then replays ours.
    const mine = await row(tx.db, INSERT_PLAN, {
      board: cmd.board,
      key,
      hash: cmd.payload_hash,
      refs: '{}',
      now: tx.now,
    });
    if (!mine) {
      const seen = await replay(tx, cmd, key);
      if (seen) return seen;
    }
  }
  const ids = new Map<string, string>();
  const resolve = (l: { ref: string } | { id: string }): string => ('id' in l ? l.id : ids.get(l.ref)!);
  const out: Record<string, Task> = {};
  for (const t of cmd.tasks) {
    const blockers = t.blocked_by.map((l) =>
      'id' in l ? linked(found.get(l.id)!) : { id: resolve(l), state: 'queued' as const, landed: false },
    );
    const r = await insertTask(
      tx,
      { ...t, board: cmd.board, created_by: cmd.agent, idempotency_key: null, payload_hash: cmd.payload_hash },
      { blockers, parent: t.parent ? resolve(t.parent) : null },
    );
    ids.set(t.ref, r.id);
    out[t.ref] = toTask(r);
  }
  if (key !== null) {
    await row(tx.db, 'UPDATE plans SET refs = @refs::jsonb WHERE board = @board AND idempotency_key = @key', {
      board: cmd.board,
      key,
      refs: JSON.stringify(Object.fromEntries(ids)),
    });
  }
  // A parent of the plan has counted its children since its row was returned.
  const parents = [...ids].filter(([ref]) =>
    cmd.tasks.some((t) => t.parent !== null && 'ref' in t.parent && t.parent.ref === ref),
  );
  for (const [ref, id] of parents) {
    out[ref] = toTask((await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id }))!);
  }
  return { ok: true, tasks: out, created: true };
}

async function replay(
  tx: Tx,
  cmd: PlanCommand,
  key: string,
): Promise<Outcome<{ tasks: Record<string, Task>; created: boolean }> | null> {
  const seen = await row<{ payload_hash: string; refs: Record<string, string> }>(tx.db, PLAN_BY_KEY, {
    board: cmd.board,
    key,
  });
  if (!seen) return null;
  const conflict = idempotencyConflict(seen, cmd.payload_hash, Object.values(seen.refs)[0] ?? '');
  if (conflict) return conflict;
  const found = await rows<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = ANY (@ids::text[])', {
    ids: Object.values(seen.refs),
  });
  const byId = new Map(found.map((r) => [r.id, r]));
  const tasks: Record<string, Task> = {};
  for (const [ref, id] of Object.entries(seen.refs)) {
    const r = byId.get(id);
    if (r) tasks[ref] = toTask(r);
  }
  return { ok: true, tasks, created: false };
}
