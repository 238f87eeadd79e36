/** Work trees and holds (SPEC §14) of the SQLite store: its port (core/worktrees/worktree-ports.ts) over worktrees.ts. */
import type { WorktreeStore } from '../../core/worktrees/worktree-ports.js';
import { endedLocks } from './holds.js';
import { recordContained } from './landed.js';
import type { SqliteCore } from './store-core.js';
import { appendEvent } from './tx.js';
import {
  addTaskUsage,
  agentTrees,
  boardRepo,
  claimTree,
  forceRelease,
  recordClaimTree,
  seenIn,
  setBoardRepo,
  trimHolds,
} from './worktrees.js';

export const worktreesPort = (s: SqliteCore): WorktreeStore => ({
  boardRepo: async (board) => s.read(() => boardRepo(s.db, board)),
  setBoardRepo: (r, opts) => s.write((tx) => setBoardRepo(tx, r, opts.replaceTarget, opts.readyOn)),
  seenIn: (board, t) => s.write((tx) => seenIn(tx, board, t)),
  agentTrees: async (board, sinceMs) => s.read(() => agentTrees(s.db, board, sinceMs)),
  recordClaimTree: (taskId, t) => s.write((tx) => recordClaimTree(tx, taskId, t)),
  claimTree: async (taskId) => s.read(() => claimTree(s.db, taskId)),
  forceReleaseLock: async (lockId) => ({ released: await s.write((tx) => forceRelease(tx, lockId)) }),
  endedLocks: async (board) => s.read(() => endedLocks(s.db, s.clock.now(), board ?? null)),
  trimHolds: async (trims) => (trims.length === 0 ? 0 : s.write((tx) => trimHolds(tx, trims))),
  recordContained: async (c) => ({ recorded: await s.write((tx) => recordContained(tx, c)) }),
  recordAgentEvent: (e) => s.write((tx) => appendEvent(tx, e)),
  addTaskUsage: async (e) => ({ added: await s.write((tx) => addTaskUsage(tx, e)) }),
});
