/**
 * SPEC §11 of both stores: a task's creation with its edges, blockers added and removed, a completed blocker.
 * Programs (program.ts) over the statements both dialects run as written (PostgreSQL's text; SQLite's runner
 * leaves out its casts and row locks) and each store's own (`<store>/deps-sql.ts`: lists of ids, the advisory
 * lock). Every program runs inside the caller's transaction, so the checks it reads cannot be overtaken before
 * its writes (PostgreSQL: the blockers it counts are locked, ordering it against their landing): a refused
 * request returns before writing.
 */
import { openBlockers as shownOpen } from '../../core/board/blockers.js';
import { cycleThrough } from '../../core/board/dependency-graph.js';
import type { Blocker, BlockerState, Task } from '../../core/model.js';
import type { CreateTaskCommand, Lost, Outcome, SetDepsCommand } from '../../core/ports.js';
import { checkLinkRows, type LinkedBlocker, type LinkRow, type Links, taskValues } from './deps-rows.js';
import {
  addedEdges,
  becameReady,
  blockedList,
  checkBlockerCount,
  depsChange,
  edgeMap,
  openDelta,
  statesOf,
} from './deps-rules.js';
import { idempotencyConflict } from './idempotency.js';
import { completedWork, type LandedSql, readyEvent } from './landed.js';
import { all, emit, get, type Prog, type Q, run } from './program.js';
import { type TaskRow, toTask } from './rows.js';
import { taskCreated } from './task-events.js';

export const DEPS_COMMON = {
  task: 'SELECT * FROM tasks WHERE id = @id',
  lockTask: 'SELECT * FROM tasks WHERE id = @id FOR NO KEY UPDATE',
  setBlockers: `UPDATE tasks SET blocked_by = @blocked_by::text[], blockers_open = blockers_open + @delta::int,
      updated_at = @now::bigint
    WHERE id = @id RETURNING *`,
  childCompleted: 'UPDATE tasks SET children_completed = children_completed + 1 WHERE id = @id',
  byKey: 'SELECT * FROM tasks WHERE board = @board AND idempotency_key = @key',
  // A random 8-char id collides rarely; ON CONFLICT DO NOTHING lets the program draw again.
  insertTask: `INSERT INTO tasks (id, board, kind, title, body, priority, labels, for_agent, created_by, state,
                   created_at, updated_at, expires_at, idempotency_key, payload_hash, blocked_by, blockers_open, parent)
    VALUES (@id, @board, @kind, @title, @body, @priority, @labels::text[], @for_agent, @created_by, 'queued',
            @now::bigint, @now::bigint, @expires_at::bigint, @idempotency_key, @payload_hash,
            @blocked_by::text[], @blockers_open::int, @parent)
    ON CONFLICT DO NOTHING RETURNING *`,
  childAdded: 'UPDATE tasks SET children_total = children_total + 1 WHERE id = @id',
  planByKey: 'SELECT payload_hash, refs FROM plans WHERE board = @board AND idempotency_key = @key',
  insertPlan: `INSERT INTO plans (board, idempotency_key, payload_hash, refs, created_at)
    VALUES (@board, @key, @hash, @refs::jsonb, @now::bigint) ON CONFLICT DO NOTHING RETURNING board`,
  setPlanRefs: 'UPDATE plans SET refs = @refs::jsonb WHERE board = @board AND idempotency_key = @key',
};

/** The statements (plans.ts's too); each store adds those over lists of ids and its serialisation of edge changes. */
export type DepsSql = typeof DEPS_COMMON &
  Record<
    'serialise' | 'linkRows' | 'lockLinks' | 'reachable' | 'deleteEdges' | 'insertEdges' | 'tasksByIds',
    string
  > & {
    landed: LandedSql;
  };
type W = Q<DepsSql>;

/** A store's table of a task's edges: the common statements, its own, and landing's. */
export const depsSql = (landed: LandedSql, own: Omit<DepsSql, keyof typeof DEPS_COMMON | 'landed'>): DepsSql => ({
  ...DEPS_COMMON,
  ...own,
  landed,
});

/** Every edge reachable from `seed` (the ids, in the dialect's list) along blocked_by. */
export const reachableFrom = (seed: string) => `WITH RECURSIVE reach(id) AS (
      ${seed}
      UNION SELECT d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id)
    SELECT d.task_id, d.blocker_id FROM task_deps AS d JOIN reach AS r ON d.task_id = r.id`;
type NewTask = Omit<CreateTaskCommand, 'blocked_by' | 'parent'>;

/** The link rows of these tasks (locked in a write, PostgreSQL: ordering it against their landing). */
export function* linkRows(sql: DepsSql, ids: readonly string[], lock: boolean): Prog<Map<string, LinkRow>> {
  if (ids.length === 0) return new Map();
  const found = yield* all<LinkRow>(lock ? sql.lockLinks : sql.linkRows, { ids: [...new Set(ids)] });
  return new Map(found.map((r) => [r.id, r]));
}

/** Inserts a checked task with its edges, counts it on its parent, and records task.created; none: id or key taken. */
function* tryInsert(q: W, cmd: NewTask, links: Links): Prog<TaskRow | undefined> {
  const r = yield* get<TaskRow>(q.sql.insertTask, taskValues(cmd, links, q.now));
  if (!r) return undefined;
  if (links.blockers.length > 0) yield* run(q.sql.insertEdges, { task_id: r.id, ids: links.blockers.map((b) => b.id) });
  if (r.parent !== null) yield* run(q.sql.childAdded, { id: r.parent });
  yield* emit(taskCreated(r, links));
  return r;
}

/** A plan's or a follow-up's task (no idempotency key of its own): drawn again until its random id is free. */
export function* insertTask(q: W, cmd: NewTask, links: Links): Prog<TaskRow> {
  for (;;) {
    const r = yield* tryInsert(q, cmd, links);
    if (r) return r;
  }
}

/** Rule 7: the idempotency key names one intent; the same key with another payload is a conflict. */
export function* createTask(q: W, cmd: CreateTaskCommand): Prog<Outcome<{ task: Task; created: boolean }>> {
  let links: Links | null = null;
  // Nothing inserted means a taken id (draw again) or, from a concurrent create with the same key (PostgreSQL:
  // the unique index made us wait for it), a key that now exists: look again.
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = yield* get<TaskRow>(q.sql.byKey, { board: cmd.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.id);
        return conflict ?? { ok: true, task: toTask(existing), created: false };
      }
    }
    if (links === null) {
      // SPEC §11: every blocker and the parent are checked (locked) before anything is written.
      const ids = cmd.parent === null ? cmd.blocked_by : [...cmd.blocked_by, cmd.parent];
      const rows = yield* linkRows(q.sql, ids, true);
      const checked = checkLinkRows(rows, cmd.board, cmd.created_by, cmd.blocked_by, cmd.parent);
      if (!checked.ok) return checked;
      links = checked.links;
    }
    const r = yield* tryInsert(q, cmd, links);
    if (r) return { ok: true, task: toTask(r), created: true };
  }
}

/** Blockers about to be added: each exists, is on the task's board and visible, and closes no cycle. */
function* checkAdded(
  q: W,
  task: TaskRow,
  agent: string,
  added: string[],
  states: Map<string, LinkRow>,
): Prog<Lost | null> {
  const checked = checkLinkRows(states, task.board, agent, added, null);
  if (!checked.ok) return checked;
  const edges = yield* all<{ task_id: string; blocker_id: string }>(q.sql.reachable, { ids: added });
  const cycle = cycleThrough(edgeMap(edges), task.id, added);
  return cycle ? { ok: false, reason: 'dependency_cycle', cycle } : null;
}

/** Adds and removes blockers of one task: all checks first, then the writes (SPEC §11). */
export function* setDeps(q: W, cmd: SetDepsCommand): Prog<Outcome<{ task: Task }>> {
  const peek = yield* get<TaskRow>(q.sql.task, { id: cmd.task_id });
  if (!peek) return { ok: false, reason: 'not_found' };
  // Two requests adding the two halves of a cycle: the second waits here, then sees the first's edge.
  if (cmd.add.length > 0) yield* get(q.sql.serialise, { board: peek.board });
  const task = yield* get<TaskRow>(q.sql.lockTask, { id: cmd.task_id });
  const change = depsChange(task, cmd, task ? blockedList(task) : [], q.now);
  if ('ok' in change) return change;
  const { removed, added } = change;
  const states = yield* linkRows(q.sql, added, true);
  const lost = added.length > 0 ? yield* checkAdded(q, task!, cmd.agent, added, states) : null;
  if (lost) return lost;
  checkBlockerCount(change.after.length);
  if (removed.length === 0 && added.length === 0) return { ok: true, task: toTask(task!) };
  for (const [id, r] of yield* linkRows(q.sql, removed, true)) states.set(id, r);
  if (removed.length > 0) yield* run(q.sql.deleteEdges, { task_id: task!.id, ids: removed });
  const edges: LinkedBlocker[] = addedEdges(states, change);
  if (edges.length > 0) yield* run(q.sql.insertEdges, { task_id: task!.id, ids: edges.map((b) => b.id) });
  const delta = openDelta(states, change);
  const r = (yield* get<TaskRow>(q.sql.setBlockers, { id: task!.id, blocked_by: change.after, delta, now: q.now }))!;
  if (becameReady(task!, r)) yield* emit(readyEvent(r, cmd.agent, null));
  return { ok: true, task: toTask(r) };
}

/**
 * In the transaction that completes `r`: work with no commits has landed, so each task it was the last open
 * blocker of becomes ready; work with commits lands when its merge is recorded (landed.ts). A failed,
 * cancelled or expired blocker never gets here: its dependents stay blocked.
 */
export function* blockerCompleted(q: W, r: TaskRow, commits: boolean): Prog<void> {
  yield* completedWork({ sql: q.sql.landed, now: q.now }, r, commits);
  if (r.parent !== null) yield* run(q.sql.childCompleted, { id: r.parent });
}

/** The states of these tasks now, landed or not (unknown ids left out). */
export function* taskStates(sql: DepsSql, ids: readonly string[]): Prog<BlockerState[]> {
  return statesOf(ids, yield* linkRows(sql, ids, false));
}

/** The blockers of `r` that have not landed, with their states (and integration). */
export function* openBlockers(sql: DepsSql, r: TaskRow): Prog<Blocker[]> {
  return shownOpen(yield* taskStates(sql, blockedList(r)));
}
