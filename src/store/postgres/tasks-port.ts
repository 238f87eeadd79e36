/** The board's reads (tasks, inbox, events, activity) of the PostgreSQL store (shared/composed-store.ts adds the task writes and artifacts). */
import type { TaskReadsPort } from '../shared/composed-store.js';
import { inbox } from './inbox.js';
import { guarded } from './pg-errors.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import type { PostgresCore } from './store-core.js';

export const tasksPort = (s: PostgresCore): TaskReadsPort => ({
  getTask: (id, agent) => guarded(() => s.freshly(() => getTask(s.pool, id, agent))),
  listTasks: (q) => guarded(() => s.freshly(() => listTasks(s.pool, q))),
  inbox: (q) => guarded(() => s.snapshot((db, now) => inbox(db, now, q))),
  events: (q) => guarded(() => listEvents(s.pool, q)),
  activity: (q) => guarded(() => s.snapshot((db, now) => activity(db, now, q))),
});
