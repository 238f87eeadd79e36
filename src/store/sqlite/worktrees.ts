/** SPEC §14 board state in SQLite: boards' repositories, who works where, claims' work trees, holds ending. */
import type { ReadyOn } from '../../core/model.js';
import type { Usage } from '../../core/runs/supervision.js';
import type { AgentTree, BoardRepo, ClaimTree, HoldTrim } from '../../core/worktrees/worktree-ports.js';
import { addedUsage } from '../shared/task-usage.js';
import type { Db } from './database.js';
import { forceReleaseLock, trimHold } from './holds.js';
import { landCompleted } from './landed.js';
import { stmt, type Tx } from './tx.js';

export const boardRepo = (db: Db, board: string): BoardRepo | null =>
  (stmt(db, 'SELECT board, repo, target, ready_on FROM board_repos WHERE board = ?').get(board) as
    | BoardRepo
    | undefined) ?? null;

export function setBoardRepo(tx: Tx, r: BoardRepo, replaceTarget: boolean, readyOn?: ReadyOn): BoardRepo {
  const before = boardRepo(tx.db, r.board);
  stmt(
    tx.db,
    `INSERT INTO board_repos (board, repo, target, created_at, ready_on) VALUES (@board, @repo, @target, @now, @ready_on)
     ON CONFLICT (board) DO UPDATE SET target = CASE WHEN @replace = 1 THEN excluded.target ELSE target END,
       ready_on = COALESCE(@set_ready_on, ready_on)`,
  ).run({
    board: r.board,
    repo: r.repo,
    target: r.target,
    now: tx.now,
    replace: replaceTarget ? 1 : 0,
    ready_on: readyOn ?? 'landed',
    set_ready_on: readyOn ?? null,
  });
  // SPEC §11: a board that goes back to the old rule counts its completed, unmerged work now.
  if (readyOn === 'completed' && before?.ready_on !== 'completed') landCompleted(tx, r.board);
  return boardRepo(tx.db, r.board) ?? r;
}

export function seenIn(tx: Tx, board: string, t: Omit<AgentTree, 'seen_at'>): void {
  stmt(
    tx.db,
    `INSERT INTO agent_worktrees (board, agent, worktree, branch, head, seen_at)
     VALUES (@board, @agent, @worktree, @branch, @head, @now)
     ON CONFLICT (board, agent) DO UPDATE SET worktree = excluded.worktree, branch = excluded.branch,
       head = excluded.head, seen_at = excluded.seen_at`,
  ).run({ board, ...t, now: tx.now });
}

export const agentTrees = (db: Db, board: string, since: number): AgentTree[] =>
  (
    stmt(
      db,
      `SELECT agent, worktree, branch, head, seen_at FROM agent_worktrees
       WHERE board = ? AND seen_at >= ? ORDER BY seen_at DESC, agent`,
    ).all(board, since) as (Omit<AgentTree, 'seen_at'> & { seen_at: number })[]
  ).map((r) => ({ ...r, seen_at: new Date(r.seen_at).toISOString() }));

export function recordClaimTree(tx: Tx, taskId: string, t: ClaimTree): void {
  stmt(
    tx.db,
    `UPDATE tasks SET claim_worktree = @worktree, claim_head = @head, claim_tree_of = @claim_id,
            claim_dirty = @dirty
     WHERE id = @task_id AND claim_id = @claim_id`,
  ).run({ task_id: taskId, ...t, dirty: t.dirty ? JSON.stringify(t.dirty) : null });
}

export function claimTree(db: Db, taskId: string): ClaimTree | null {
  const r = stmt(
    db,
    `SELECT claim_tree_of AS claim_id, claim_worktree AS worktree, claim_head AS head, claim_dirty AS dirty
     FROM tasks WHERE id = ?`,
  ).get(taskId) as
    | { claim_id: string | null; worktree: string | null; head: string | null; dirty: string | null }
    | undefined;
  return r?.claim_id && r.worktree
    ? { claim_id: r.claim_id, worktree: r.worktree, head: r.head, dirty: r.dirty ? JSON.parse(r.dirty) : null }
    : null;
}

export const forceRelease = (tx: Tx, lockId: string): boolean => forceReleaseLock(tx, lockId);

export function trimHolds(tx: Tx, trims: HoldTrim[]): number {
  let changed = 0;
  for (const t of trims) if (trimHold(tx, t.lock_id, t.keep, t.reason)) changed++;
  return changed;
}

/** SPEC §18 "Budgets": add an exited run's usage to its task's, once per run (shared/task-usage.ts). */
export function addTaskUsage(tx: Tx, e: { task_id: string; run: string; usage: Usage }): boolean {
  const r = stmt(tx.db, 'SELECT run_usage FROM tasks WHERE id = ?').get(e.task_id) as
    | { run_usage: string | null }
    | undefined;
  if (!r) return false;
  const next = addedUsage(r.run_usage, e.run, e.usage);
  if (next === null) return false;
  stmt(tx.db, 'UPDATE tasks SET run_usage = ? WHERE id = ?').run(next, e.task_id);
  return true;
}
