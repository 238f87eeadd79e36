/** Change holds (SPEC §14): store/shared/holds-store.ts's programs as PostgreSQL's other code calls them. */
import type { EndedLock } from '../../core/worktrees/worktree-ports.js';
import * as holds from '../shared/holds-store.js';
import type { Queryable } from './database.js';
import { LOCKS_SQL } from './locks.js';
import { runAsync } from './runner.js';

/** One round trip (it runs after every submit); `now` null: the statement reads the database clock itself. */
export const endedLocks = (db: Queryable, now: number | null, board: string | null): Promise<EndedLock[]> =>
  runAsync(holds.endedLocks(LOCKS_SQL, now, board), db);
