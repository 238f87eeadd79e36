/**
 * SPEC §14 board state of both stores: boards' repositories, who works where, claims' work trees, holds
 * ending, a run's usage (§18). Programs (program.ts) over the statements (worktrees-sql.ts), with the store's
 * landing and locks tables (holds end with holds-store.ts).
 */
import type { ReadyOn } from '../../core/model.js';
import type { Usage } from '../../core/runs/supervision.js';
import type { AgentTree, BoardRepo, ClaimTree, WorktreeStore } from '../../core/worktrees/worktree-ports.js';
import { forceReleaseLock, trimHold } from './holds-store.js';
import { landCompleted, recordContained } from './landed.js';
import { all, emit, get, type Prog, type Q, type Runner, run } from './program.js';
import { addedUsage } from './task-usage.js';
import type { WorktreesSql } from './worktrees-sql.js';

type W = Q<WorktreesSql>;

function* boardRepo(sql: WorktreesSql, board: string): Prog<BoardRepo | null> {
  return (yield* get<BoardRepo>(sql.boardRepo, { board })) ?? null;
}

function* setBoardRepo(q: W, r: BoardRepo, replace: boolean, readyOn?: ReadyOn): Prog<BoardRepo> {
  // Locked first (PostgreSQL): two changes of the rule queue here, so the second sees the first's.
  const before = yield* get<{ ready_on: ReadyOn }>(q.sql.boardRule, { board: r.board });
  const values = { ...r, now: q.now, replace, ready_on: readyOn ?? 'landed', set_ready_on: readyOn ?? null };
  const out = yield* get<BoardRepo>(q.sql.upsertBoardRepo, values);
  // SPEC §11: a board that goes back to the old rule counts its completed, unmerged work now.
  if (readyOn === 'completed' && before?.ready_on !== 'completed') {
    yield* landCompleted({ sql: q.sql.landed, now: q.now }, r.board);
  }
  return out ?? r;
}

function* agentTrees(sql: WorktreesSql, board: string, since: number): Prog<AgentTree[]> {
  const found = yield* all<Omit<AgentTree, 'seen_at'> & { seen_at: number }>(sql.agentTrees, { board, since });
  return found.map((r) => ({ ...r, seen_at: new Date(Number(r.seen_at)).toISOString() }));
}

function* claimTree(sql: WorktreesSql, id: string): Prog<ClaimTree | null> {
  type Row = { claim_id: string | null; worktree: string | null; head: string | null; dirty: string | null };
  const r = yield* get<Row>(sql.claimTree, { id });
  return r?.claim_id && r.worktree
    ? { claim_id: r.claim_id, worktree: r.worktree, head: r.head, dirty: r.dirty ? JSON.parse(r.dirty) : null }
    : null;
}

/** SPEC §18 "Budgets": add an exited run's usage to its task's, once per run (task-usage.ts). */
function* addTaskUsage(q: W, e: { task_id: string; run: string; usage: Usage }): Prog<boolean> {
  const r = yield* get<{ run_usage: string | null }>(q.sql.runUsage, { id: e.task_id });
  if (!r) return false;
  const next = addedUsage(r.run_usage, e.run, e.usage);
  if (next === null) return false;
  yield* run(q.sql.setRunUsage, { id: e.task_id, next });
  return true;
}

/** The port (core/worktrees/worktree-ports.ts) over a store's runner; `endedLocks` is the store's own read. */
export const worktreesPort = (r: Runner<WorktreesSql>, endedLocks: WorktreeStore['endedLocks']): WorktreeStore => ({
  boardRepo: (board) => r.read((sql) => boardRepo(sql, board)),
  setBoardRepo: (repo, opts) => r.write((q) => setBoardRepo(q, repo, opts.replaceTarget, opts.readyOn)),
  async seenIn(board, t) {
    await r.write((q) => run(q.sql.seenIn, { board, ...t, now: q.now }));
  },
  agentTrees: (board, sinceMs) => r.read((sql) => agentTrees(sql, board, sinceMs)),
  async recordClaimTree(task_id, t) {
    const dirty = t.dirty ? JSON.stringify(t.dirty) : null;
    await r.write((q) => run(q.sql.recordClaimTree, { task_id, ...t, dirty }));
  },
  claimTree: (taskId) => r.read((sql) => claimTree(sql, taskId)),
  forceReleaseLock: async (lockId) => ({
    released: await r.write((q) => forceReleaseLock({ sql: q.sql.locks, now: q.now }, lockId)),
  }),
  endedLocks,
  trimHolds: async (trims) =>
    trims.length === 0
      ? 0
      : r.write(function* (q) {
          let changed = 0;
          const locks = { sql: q.sql.locks, now: q.now };
          for (const t of trims) if (yield* trimHold(locks, t.lock_id, t.keep, t.reason)) changed++;
          return changed;
        }),
  recordContained: async (c) => ({
    recorded: await r.write((q) => recordContained({ sql: q.sql.landed, now: q.now }, c)),
  }),
  recordAgentEvent: (e) => r.write(() => emit(e)),
  addTaskUsage: async (e) => ({ added: await r.write((q) => addTaskUsage(q, e)) }),
});
