/** The store port of dependencies and plans (SPEC §11), part of `Store`. Each method is one transaction. */
import type { BlockerState, Task } from '../model.js';
import type { CreateTaskCommand, Outcome } from '../ports.js';

/** SPEC §11: change a task's blockers; every id exists and is visible, no cycle, or nothing is written. */
export interface SetDepsCommand {
  task_id: string;
  agent: string;
  add: string[];
  remove: string[];
}

/** One task of a plan; its edges name other plan tasks by ref or existing tasks by id. */
export interface PlanTaskCommand
  extends Omit<CreateTaskCommand, 'blocked_by' | 'parent' | 'idempotency_key' | 'payload_hash'> {
  ref: string;
  blocked_by: PlanLink[];
  parent: PlanLink | null;
}
export type PlanLink = { ref: string } | { id: string };

/** SPEC §11: tasks in dependency order (a ref is always created before the tasks that name it). */
export interface PlanCommand {
  board: string;
  agent: string;
  idempotency_key: string | null;
  payload_hash: string;
  tasks: PlanTaskCommand[];
}

export interface DependencyStore {
  /** SPEC §11: add and remove blockers of a queued task, in one transaction, or nothing. */
  setDeps(cmd: SetDepsCommand): Promise<Outcome<{ task: Task }>>;
  /** SPEC §11: every task of the plan with its edges in one transaction, or none; `created: false` on a replay. */
  createPlan(cmd: PlanCommand): Promise<Outcome<{ tasks: Record<string, Task>; created: boolean }>>;
  /** The states of these tasks (missing ids are left out), landed or not: describes a task's open blockers. */
  taskStates(ids: string[]): Promise<BlockerState[]>;
}
