/** The work-tree state's statements (store/shared/worktrees-sql.ts) and PostgreSQL's own holds and landing code. */
import { WORKTREES_COMMON, type WorktreesSql } from '../shared/worktrees-sql.js';
import { forceReleaseLock, trimHold } from './holds.js';
import { landCompleted, recordContained } from './landed.js';

export const WORKTREES_SQL: WorktreesSql = {
  ...WORKTREES_COMMON,
  landCompleted,
  forceReleaseLock,
  trimHold,
  recordContained,
};
