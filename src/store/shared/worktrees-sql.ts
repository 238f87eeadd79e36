/**
 * The statements of the work-tree state (worktrees.ts), written once for both dialects: PostgreSQL's text,
 * which SQLite's runner runs without its casts and row locks. A board's rule and a task's usage are read
 * FOR UPDATE: two changes at once queue there.
 */
import type { LandedSql } from './landed.js';
import type { LocksSql } from './locks-sql.js';

export const WORKTREES_COMMON = {
  boardRepo: 'SELECT board, repo, target, ready_on FROM board_repos WHERE board = @board',
  boardRule: 'SELECT ready_on FROM board_repos WHERE board = @board FOR UPDATE',
  upsertBoardRepo: `INSERT INTO board_repos (board, repo, target, created_at, ready_on)
     VALUES (@board, @repo, @target, @now::bigint, @ready_on)
     ON CONFLICT (board) DO UPDATE
       SET target = CASE WHEN @replace::boolean THEN excluded.target ELSE board_repos.target END,
           ready_on = COALESCE(@set_ready_on::text, board_repos.ready_on)
     RETURNING board, repo, target, ready_on`,
  seenIn: `INSERT INTO agent_worktrees (board, agent, worktree, branch, head, seen_at)
     VALUES (@board, @agent, @worktree, @branch, @head, @now::bigint)
     ON CONFLICT (board, agent) DO UPDATE SET worktree = excluded.worktree, branch = excluded.branch,
       head = excluded.head, seen_at = excluded.seen_at`,
  agentTrees: `SELECT agent, worktree, branch, head, seen_at FROM agent_worktrees
     WHERE board = @board AND seen_at >= @since::bigint ORDER BY seen_at DESC, agent`,
  recordClaimTree: `UPDATE tasks SET claim_worktree = @worktree, claim_head = @head, claim_tree_of = @claim_id,
            claim_dirty = @dirty
     WHERE id = @task_id AND claim_id = @claim_id`,
  claimTree: `SELECT claim_tree_of AS claim_id, claim_worktree AS worktree, claim_head AS head, claim_dirty AS dirty
     FROM tasks WHERE id = @id`,
  runUsage: 'SELECT run_usage FROM tasks WHERE id = @id FOR UPDATE',
  setRunUsage: 'UPDATE tasks SET run_usage = @next WHERE id = @id',
};

/** The statements, landing's, and the locks' (a hold forced away or trimmed, holds-store.ts). */
export type WorktreesSql = typeof WORKTREES_COMMON & { landed: LandedSql; locks: LocksSql };

/** A store's table of the work-tree state: the common statements, and its landing's and locks' tables. */
export const worktreesSql = (landed: LandedSql, locks: LocksSql): WorktreesSql => ({
  ...WORKTREES_COMMON,
  landed,
  locks,
});
