/** Change holds (SPEC §14): store/shared/holds-store.ts's programs as SQLite's other code calls them. */
import type { EndedLock } from '../../core/worktrees/worktree-ports.js';
import * as holds from '../shared/holds-store.js';
import type { Db } from './database.js';
import { LOCKS_SQL } from './locks.js';
import { runSync } from './runner.js';

/** The board's (or every board's) ended work-tree locks waiting for git to say what is pending. */
export const endedLocks = (db: Db, now: number, board: string | null): EndedLock[] =>
  runSync(holds.endedLocks(LOCKS_SQL, now, board), db);
