/** Tasks, dependencies, plans, artifacts and the board's reads of the PostgreSQL store (shared/store-ports.ts). */
import { ARTIFACTS_SQL, artifactsPort } from '../shared/artifacts.js';
import { taskWritesPort } from '../shared/plans.js';
import type { TasksPort } from '../shared/store-ports.js';
import { DEPS_SQL } from './deps-sql.js';
import { inbox } from './inbox.js';
import { guarded } from './pg-errors.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import { runner } from './runner.js';
import type { PostgresCore } from './store-core.js';

export const tasksPort = (s: PostgresCore): TasksPort => ({
  ...artifactsPort(runner(s, ARTIFACTS_SQL)),
  ...taskWritesPort(runner(s, DEPS_SQL)),
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
  inbox: (q) => guarded(() => s.snapshot((db, now) => inbox(db, now, q))),
  events: (q) => guarded(() => listEvents(s.pool, q)),
  activity: (q) => guarded(() => s.snapshot((db, now) => activity(db, now, q))),
});
