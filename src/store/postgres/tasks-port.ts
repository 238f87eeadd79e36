/** Tasks, dependencies, plans, artifacts and the board's reads of the PostgreSQL store (shared/store-ports.ts). */
import type { TasksPort } from '../shared/store-ports.js';
import { getArtifact, listArtifacts, putArtifact } from './artifacts.js';
import { createTask } from './create-task.js';
import { setDeps, taskStates } from './deps.js';
import { inbox } from './inbox.js';
import { guarded } from './pg-errors.js';
import { createPlan } from './plans.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import type { PostgresCore } from './store-core.js';

export const tasksPort = (s: PostgresCore): TasksPort => ({
  createTask: (cmd) => s.write((tx) => createTask(tx, cmd)),
  getTask: (id, agent) =>
    guarded(async () => {
      await s.fresh();
      return getTask(s.pool, id, agent);
    }),
  listTasks: (q) =>
    guarded(async () => {
      await s.fresh();
      return listTasks(s.pool, q);
    }),
  setDeps: (cmd) => s.write((tx) => setDeps(tx, cmd)),
  createPlan: (cmd) => s.write((tx) => createPlan(tx, cmd)),
  taskStates: (ids) => guarded(() => taskStates(s.pool, ids)),
  putArtifact: (cmd) => s.write((tx) => putArtifact(tx, cmd)),
  getArtifact: (taskId, artifactId) => guarded(() => getArtifact(s.pool, taskId, artifactId)),
  listArtifacts: (taskId) => guarded(() => listArtifacts(s.pool, taskId)),
  inbox: (q) => guarded(() => s.snapshot((db, now) => inbox(db, now, q))),
  events: (q) => guarded(() => listEvents(s.pool, q)),
  activity: (q) => guarded(() => s.snapshot((db, now) => activity(db, now, q))),
});
