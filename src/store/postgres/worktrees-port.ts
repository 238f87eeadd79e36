/** Work trees and holds (SPEC §14) of the PostgreSQL store: its port (core/worktrees/worktree-ports.ts) over worktrees.ts. */
import type { WorktreeStore } from '../../core/worktrees/worktree-ports.js';
import { endedLocks, forceReleaseLock } from './holds.js';
import { recordContained } from './landed.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';
import { appendEvent } from './tx.js';
import {
  addTaskUsage,
  agentTrees,
  boardRepo,
  claimTree,
  recordClaimTree,
  seenIn,
  setBoardRepo,
  trimHolds,
} from './worktrees.js';

export const worktreesPort = (s: PostgresCore): WorktreeStore => ({
  boardRepo: (board) => guarded(() => boardRepo(s.pool, board)),
  setBoardRepo: (r, opts) => s.write((tx) => setBoardRepo(tx, r, opts.replaceTarget, opts.readyOn)),
  seenIn: (board, t) => s.write((tx) => seenIn(tx, board, t)),
  agentTrees: (board, sinceMs) => guarded(() => agentTrees(s.pool, board, sinceMs)),
  recordClaimTree: (taskId, t) => s.write((tx) => recordClaimTree(tx, taskId, t)),
  claimTree: (taskId) => guarded(() => claimTree(s.pool, taskId)),
  forceReleaseLock: async (lockId) => ({ released: await s.write((tx) => forceReleaseLock(tx, lockId)) }),
  // One round trip (it runs after every submit): the statement reads the database clock itself.
  endedLocks: (board) => guarded(() => endedLocks(s.pool, s.clockNow(), board ?? null)),
  trimHolds: async (trims) => (trims.length === 0 ? 0 : s.write((tx) => trimHolds(tx, trims))),
  recordContained: async (c) => ({ recorded: await s.write((tx) => recordContained(tx, c)) }),
  recordAgentEvent: (e) => s.write(async (tx) => appendEvent(tx, e)),
  addTaskUsage: async (e) => ({ added: await s.write((tx) => addTaskUsage(tx, e)) }),
});
