/**
 * The rules of SPEC §11 both stores apply around their SQL: whether a task may change its blockers and which
 * change, the blocker limit, the open count's delta, readiness, and a plan's tasks in dependency order.
 */

import { explainNotQueued } from '../../core/board/rules.js';
import { CoordError } from '../../core/errors.js';
import { type BlockerState, isTerminal, MAX_BLOCKERS, type Task } from '../../core/model.js';
import type { CreateTaskCommand, Lost, PlanCommand, SetDepsCommand } from '../../core/ports.js';
import { blockerState, type LinkedBlocker, type LinkRow, type Links, linked } from './deps-rows.js';
import { type TaskRow, toFacts, toTask } from './rows.js';
import { rowVisibleTo } from './visibility.js';

/** A change of blockers that passed the task's checks: what it removes and adds, and the list after. */
export interface DepsChange {
  removed: string[];
  added: string[];
  after: string[];
}

/** May `cmd` change `task`'s blockers, and which change is it (SPEC §11)? `before`: its blocked_by now. */
export function depsChange(
  task: TaskRow | undefined,
  cmd: SetDepsCommand,
  before: string[],
  now: number,
): Lost | DepsChange {
  if (!task || !rowVisibleTo(task, cmd.agent)) return { ok: false, reason: 'not_found' };
  // A task being worked on cannot start waiting for something; a finished one never changes again.
  if ((cmd.add.length > 0 && task.state !== 'queued') || isTerminal(task.state)) {
    return explainNotQueued(toFacts(task), now);
  }
  const removed = before.filter((id) => cmd.remove.includes(id));
  const added = cmd.add.filter((id) => !before.includes(id) && !cmd.remove.includes(id));
  return { removed, added, after: [...before.filter((id) => !removed.includes(id)), ...added] };
}

export function checkBlockerCount(n: number): void {
  if (n <= MAX_BLOCKERS) return;
  throw new CoordError('invalid_request', `a task may wait for at most ${MAX_BLOCKERS} others (this would make ${n})`, {
    issues: [{ path: 'add', message: `at most ${MAX_BLOCKERS} blockers per task` }],
  });
}

/** SPEC §11: a blocker that has not landed holds the task back (one that landed already counted). */
export function openDelta(states: ReadonlyMap<string, LinkRow>, c: DepsChange): number {
  const open = (ids: string[]) => ids.filter((id) => !states.get(id)?.landed).length;
  return open(c.added) - open(c.removed);
}

/** The added blockers as edges, from their rows. */
export const addedEdges = (states: ReadonlyMap<string, LinkRow>, c: DepsChange): LinkedBlocker[] =>
  c.added.map((id) => linked(states.get(id)!));

/** Whether a change of blockers made the task ready (its last open blocker removed). */
export const becameReady = (before: TaskRow, after: TaskRow): boolean =>
  before.blockers_open > 0 && after.blockers_open === 0 && after.state === 'queued';

/** The edges reached from some tasks along blocked_by, as a map for core/board/dependency-graph.ts. */
export function edgeMap(found: readonly { task_id: string; blocker_id: string }[]): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const e of found) {
    const list = edges.get(e.task_id);
    if (list) list.push(e.blocker_id);
    else edges.set(e.task_id, [e.blocker_id]);
  }
  return edges;
}

/** The states of these tasks, in the order asked (unknown ids left out). */
export const statesOf = (ids: readonly string[], found: ReadonlyMap<string, LinkRow>): BlockerState[] =>
  ids.flatMap((id) => {
    const r = found.get(id);
    return r ? [blockerState(r)] : [];
  });

export type PlanMade = { tasks: Record<string, Task>; created: boolean };

/** The ids of existing tasks a plan names as blockers or parents, each once. */
export function existingNamed(cmd: PlanCommand): string[] {
  const existing = new Set<string>();
  for (const t of cmd.tasks) {
    for (const l of [...t.blocked_by, ...(t.parent ? [t.parent] : [])]) if ('id' in l) existing.add(l.id);
  }
  return [...existing];
}

/**
 * A plan's tasks in order, each as the insert takes it: its command and its links, resolved against the ids
 * of the tasks inserted before it (`ids`, ref → id, filled in by the caller after each insert).
 */
export function* plannedTasks(
  cmd: PlanCommand,
  found: ReadonlyMap<string, LinkRow>,
  ids: ReadonlyMap<string, string>,
): Generator<{ ref: string; cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>; links: Links }> {
  const resolve = (l: { ref: string } | { id: string }): string => ('id' in l ? l.id : ids.get(l.ref)!);
  for (const t of cmd.tasks) {
    const blockers = t.blocked_by.map((l) =>
      'id' in l ? linked(found.get(l.id)!) : { id: resolve(l), state: 'queued' as const, landed: false },
    );
    yield {
      ref: t.ref,
      cmd: { ...t, board: cmd.board, created_by: cmd.agent, idempotency_key: null, payload_hash: cmd.payload_hash },
      links: { blockers, parent: t.parent ? resolve(t.parent) : null },
    };
  }
}

/** The plan's tasks that are parents of others: they counted their children after their rows were returned. */
export const planParents = (cmd: PlanCommand, ids: ReadonlyMap<string, string>): [string, string][] =>
  [...ids].filter(([ref]) => cmd.tasks.some((t) => t.parent !== null && 'ref' in t.parent && t.parent.ref === ref));

/** A plan made before: its tasks as they are now. */
export function replayedPlan(refs: Record<string, string>, byId: (id: string) => TaskRow | undefined): PlanMade {
  const tasks: Record<string, Task> = {};
  for (const [ref, id] of Object.entries(refs)) {
    const r = byId(id);
    if (r) tasks[ref] = toTask(r);
  }
  return { tasks, created: false };
}

/** A row's blocked_by as a list (SQLite stores JSON text, PostgreSQL an array). */
export const blockedList = (r: TaskRow): string[] =>
  typeof r.blocked_by === 'string' ? (JSON.parse(r.blocked_by) as string[]) : r.blocked_by;
