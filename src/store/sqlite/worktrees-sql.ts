/** The work-tree state's statements (store/shared/worktrees-sql.ts) and SQLite's own holds code. */
import { WORKTREES_COMMON, type WorktreesSql } from '../shared/worktrees-sql.js';
import { forceReleaseLock, trimHold } from './holds.js';
import { LANDED_SQL } from './landed-sql.js';

export const WORKTREES_SQL: WorktreesSql = {
  ...WORKTREES_COMMON,
  landed: LANDED_SQL,
  forceReleaseLock,
  trimHold,
};
