/** The statements of the work-tree state (store/shared/worktrees.ts) in SQLite's dialect, and its holds and landing code. */
import type { WorktreesSql } from '../shared/worktrees.js';
import { forceReleaseLock, trimHold } from './holds.js';
import { landCompleted, recordContained } from './landed.js';

export const WORKTREES_SQL: WorktreesSql = {
  boardRepo: 'SELECT board, repo, target, ready_on FROM board_repos WHERE board = @board',
  boardRule: 'SELECT ready_on FROM board_repos WHERE board = @board',
  upsertBoardRepo: `INSERT INTO board_repos (board, repo, target, created_at, ready_on)
    VALUES (@board, @repo, @target, @now, @ready_on)
    ON CONFLICT (board) DO UPDATE SET target = CASE WHEN @replace = 1 THEN excluded.target ELSE target END,
      ready_on = COALESCE(@set_ready_on, ready_on)
    RETURNING board, repo, target, ready_on`,
  seenIn: `INSERT INTO agent_worktrees (board, agent, worktree, branch, head, seen_at)
    VALUES (@board, @agent, @worktree, @branch, @head, @now)
    ON CONFLICT (board, agent) DO UPDATE SET worktree = excluded.worktree, branch = excluded.branch,
      head = excluded.head, seen_at = excluded.seen_at`,
  agentTrees: `SELECT agent, worktree, branch, head, seen_at FROM agent_worktrees
    WHERE board = @board AND seen_at >= @since ORDER BY seen_at DESC, agent`,
  recordClaimTree: `UPDATE tasks SET claim_worktree = @worktree, claim_head = @head, claim_tree_of = @claim_id,
    claim_dirty = @dirty WHERE id = @task_id AND claim_id = @claim_id`,
  claimTree: `SELECT claim_tree_of AS claim_id, claim_worktree AS worktree, claim_head AS head, claim_dirty AS dirty
    FROM tasks WHERE id = @id`,
  runUsage: 'SELECT run_usage FROM tasks WHERE id = @id',
  setRunUsage: 'UPDATE tasks SET run_usage = @next WHERE id = @id',
  landCompleted,
  forceReleaseLock,
  trimHold,
  recordContained,
};
