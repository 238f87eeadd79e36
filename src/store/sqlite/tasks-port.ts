/** The board's reads (tasks, inbox, events, activity) of the SQLite store (shared/composed-store.ts adds the task writes and artifacts). */
import type { TaskReadsPort } from '../shared/composed-store.js';
import { inbox, quickInbox } from './inbox.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import type { SqliteCore } from './store-core.js';

export const tasksPort = (s: SqliteCore): TaskReadsPort => ({
  getTask: (id, agent) => s.freshly(() => s.read(() => getTask(s.db, id, agent))),
  listTasks: (q) => s.freshly(() => s.read(() => listTasks(s.db, q))),
  async inbox(q) {
    // Most polls find nothing: one statement says so (and whether anything is due, or mail is waiting), and the
    // answer is kept until the file changes or something falls due.
    const now = s.clock.now();
    const kept = s.read(() => s.emptyInboxes.get(q, now));
    if (kept) return kept;
    let quick = s.read(() => quickInbox(s.db, now, q));
    if (quick === 'due') {
      await s.moveDueNow();
      // Still due after this: the disk refused the move; the look below reads the last committed state.
      quick = s.read(() => quickInbox(s.db, now, q));
    } else if (quick.view) s.emptyInboxes.put(q, quick);
    if (quick !== 'due' && quick.view) return { ...quick.view, mail: quick.mail };
    // The full look's statements in one read transaction: one snapshot, and one read lock.
    const view = s.read(() => s.snapshot(() => inbox(s.db, now, q)));
    return quick === 'due' ? view : { ...view, mail: quick.mail };
  },
  events: async (q) => s.read(() => listEvents(s.db, q)),
  activity: (q) => s.freshly((now) => s.read(() => activity(s.db, now, q))),
});
