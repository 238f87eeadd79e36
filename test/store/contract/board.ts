/** Shared plumbing for the store contract: a fresh store per test, and short calls through the operations. */
import { afterEach, beforeEach } from 'node:test';
import type { ClaimGrant, Task } from '../../../src/core/model.js';
import { operations as op } from '../../../src/core/operations.js';
import type { CreateTaskInput } from '../../../src/core/schemas.js';
import { type Harness, harness, type MakeStore } from '../../support/ctx.js';

export { op };

export interface Board extends Harness {
  post(agent: string, fields?: Partial<CreateTaskInput>): Promise<Task>;
  claim(task_id: string, agent: string, lease_s?: number): Promise<ClaimGrant>;
  show(task_id: string): Promise<Task>;
  /** Every event so far, oldest first. */
  events(): Promise<{ seq: number; type: string; task_id: string | null; agent: string | null }[]>;
  /** updated_at of every task (operator view), to prove a read wrote nothing. */
  snapshot(): Promise<Map<string, string>>;
}

export function wrap(h: Harness): Board {
  return {
    ...h,
    async post(agent, fields = {}) {
      return (await h.call(op.createTask, { title: 'a task', ...fields, agent })).task;
    },
    claim(task_id, agent, lease_s) {
      return h.call(op.claimTask, { task_id, agent, ...(lease_s === undefined ? {} : { lease_s }) });
    },
    async show(task_id) {
      // The task as other operations answer it; its notes and integration (show and list only) are read
      // with op.showTask.
      const {
        notes: _notes,
        notes_count: _count,
        integration: _i,
        ...task
      } = (await h.call(op.showTask, { task_id })).task;
      return task;
    },
    async events() {
      return (await h.call(op.listEvents, { limit: 1000 })).events;
    },
    async snapshot() {
      const { tasks } = await h.call(op.listTasks, { limit: 500 });
      return new Map(tasks.map((t) => [t.id, t.updated_at]));
    },
  };
}

/** Registers a fresh store (own temp database) around each test of the enclosing describe. */
export function freshBoard(make: MakeStore): () => Board {
  let board: Board | undefined;
  beforeEach(async () => {
    board = wrap(await harness(make));
  });
  afterEach(async () => {
    await board?.store.close();
    board = undefined;
  });
  return () => {
    if (!board) throw new Error('no board outside a test');
    return board;
  };
}

export const S = 1000;
