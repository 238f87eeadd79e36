/** The work-tree state's statements (store/shared/worktrees-sql.ts) and SQLite's own holds code. */
import { worktreesSql } from '../shared/worktrees-sql.js';
import { forceReleaseLock, trimHold } from './holds.js';
import { LANDED_SQL } from './landed-sql.js';

export const WORKTREES_SQL = worktreesSql(LANDED_SQL, { forceReleaseLock, trimHold });
