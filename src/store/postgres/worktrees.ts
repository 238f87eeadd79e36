/** SPEC §14 board state in PostgreSQL, the twin of sqlite/worktrees.ts. */
import type { ReadyOn } from '../../core/model.js';
import type { Usage } from '../../core/runs/supervision.js';
import type { AgentTree, BoardRepo, ClaimTree, HoldTrim } from '../../core/worktrees/worktree-ports.js';
import { addedUsage } from '../shared/task-usage.js';
import type { Queryable } from './database.js';
import { trimHold } from './holds.js';
import { landCompleted } from './landed.js';
import { row, rows } from './sql.js';
import type { Tx } from './tx.js';

export const boardRepo = async (db: Queryable, board: string): Promise<BoardRepo | null> =>
  (await row<BoardRepo>(db, 'SELECT board, repo, target, ready_on FROM board_repos WHERE board = @board', {
    board,
  })) ?? null;

export async function setBoardRepo(
  tx: Tx,
  r: BoardRepo,
  replaceTarget: boolean,
  readyOn?: ReadyOn,
): Promise<BoardRepo> {
  // Locked first: two changes of the rule queue here, so the second sees the first's.
  const before = await row<{ ready_on: ReadyOn }>(
    tx.db,
    'SELECT ready_on FROM board_repos WHERE board = @board FOR UPDATE',
    { board: r.board },
  );
  const out = await row<BoardRepo>(
    tx.db,
    `INSERT INTO board_repos (board, repo, target, created_at, ready_on)
     VALUES (@board, @repo, @target, @now::bigint, @ready_on)
     ON CONFLICT (board) DO UPDATE
       SET target = CASE WHEN @replace::boolean THEN excluded.target ELSE board_repos.target END,
           ready_on = COALESCE(@set_ready_on::text, board_repos.ready_on)
     RETURNING board, repo, target, ready_on`,
    {
      board: r.board,
      repo: r.repo,
      target: r.target,
      now: tx.now,
      replace: replaceTarget,
      ready_on: readyOn ?? 'landed',
      set_ready_on: readyOn ?? null,
    },
  );
  // SPEC §11: a board that goes back to the old rule counts its completed, unmerged work now.
  if (readyOn === 'completed' && before?.ready_on !== 'completed') await landCompleted(tx, r.board);
  return out ?? r;
}

export async function seenIn(tx: Tx, board: string, t: Omit<AgentTree, 'seen_at'>): Promise<void> {
  await rows(
    tx.db,
    `INSERT INTO agent_worktrees (board, agent, worktree, branch, head, seen_at)
     VALUES (@board, @agent, @worktree, @branch, @head, @now::bigint)
     ON CONFLICT (board, agent) DO UPDATE SET worktree = excluded.worktree, branch = excluded.branch,
       head = excluded.head, seen_at = excluded.seen_at`,
    { board, ...t, now: tx.now },
  );
}

export async function agentTrees(db: Queryable, board: string, since: number): Promise<AgentTree[]> {
  const found = await rows<Omit<AgentTree, 'seen_at'> & { seen_at: number }>(
    db,
    `SELECT agent, worktree, branch, head, seen_at FROM agent_worktrees
     WHERE board = @board AND seen_at >= @since::bigint ORDER BY seen_at DESC, agent`,
    { board, since },
  );
  return found.map((r) => ({ ...r, seen_at: new Date(Number(r.seen_at)).toISOString() }));
}

export async function recordClaimTree(tx: Tx, taskId: string, t: ClaimTree): Promise<void> {
  await rows(
    tx.db,
    `UPDATE tasks SET claim_worktree = @worktree, claim_head = @head, claim_tree_of = @claim_id,
            claim_dirty = @dirty
     WHERE id = @task_id AND claim_id = @claim_id`,
    { task_id: taskId, ...t, dirty: t.dirty ? JSON.stringify(t.dirty) : null },
  );
}

export async function claimTree(db: Queryable, taskId: string): Promise<ClaimTree | null> {
  const r = await row<{ claim_id: string | null; worktree: string | null; head: string | null; dirty: string | null }>(
    db,
    `SELECT claim_tree_of AS claim_id, claim_worktree AS worktree, claim_head AS head, claim_dirty AS dirty
     FROM tasks WHERE id = @id`,
    { id: taskId },
  );
  return r?.claim_id && r.worktree
    ? { claim_id: r.claim_id, worktree: r.worktree, head: r.head, dirty: r.dirty ? JSON.parse(r.dirty) : null }
    : null;
}

export async function trimHolds(tx: Tx, trims: HoldTrim[]): Promise<number> {
  let changed = 0;
  for (const t of trims) if (await trimHold(tx, t.lock_id, t.keep, t.reason)) changed++;
  return changed;
}

/** SPEC §18 "Budgets": add an exited run's usage to its task's, once per run (shared/task-usage.ts). */
export async function addTaskUsage(tx: Tx, e: { task_id: string; run: string; usage: Usage }): Promise<boolean> {
  const r = await row<{ run_usage: string | null }>(tx.db, 'SELECT run_usage FROM tasks WHERE id = @id FOR UPDATE', {
    id: e.task_id,
  });
  if (!r) return false;
  const next = addedUsage(r.run_usage, e.run, e.usage);
  if (next === null) return false;
  await rows(tx.db, 'UPDATE tasks SET run_usage = @next WHERE id = @id', { id: e.task_id, next });
  return true;
}
