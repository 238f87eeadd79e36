/**
 * SPEC §14: "an unheld pending path in another work tree gives a warning
 * line, not a block". What each work tree of a board's repository would bring
 * into the target is kept as a snapshot per board, so the edit decision reads
 * it from memory: git runs off the decision's path while edits go on
 * (refreshed in the background once the snapshot is a second old, and by
 * `changes` / `worktrees`, which compute it anyway). Only a decision that
 * finds it older than FRESH_MS — the board's first, or the first after a
 * while idle — waits for git: a stale look would warn about work merged
 * meanwhile and miss work committed meanwhile.
 */
import { shortTree } from '../holds.js';
import type { Ctx } from '../operation.js';
import { overlaps } from '../paths.js';

/**
 * A snapshot older than this is looked at again before the decision reads it; one older than half of it is
 * refreshed in the background while the decision reads it.
 */
const FRESH_MS = 2000;

interface TreePending {
  branch: string | null;
  paths: string[];
}

interface Snapshot {
  at: number;
  trees: Map<string, TreePending>;
  refreshing: Promise<void> | null;
}

/** Per store (one daemon's board state), per board. */
const snapshots = new WeakMap<object, Map<string, Snapshot>>();

function boardSnapshots(ctx: Ctx): Map<string, Snapshot> {
  let m = snapshots.get(ctx.store);
  if (!m) {
    m = new Map();
    snapshots.set(ctx.store, m);
  }
  return m;
}

/** What `changes` has just computed: kept for the edit decisions that follow. */
export function recordPending(
  ctx: Ctx,
  board: string,
  trees: Map<string, TreePending>,
  startedAt: number = ctx.clock.now(),
): void {
  const m = boardSnapshots(ctx);
  const was = m.get(board);
  // A slower look that began before the one kept (a background refresh finishing after `changes`) would put
  // older facts back.
  if (was && was.at > startedAt) return;
  m.set(board, { at: startedAt, trees, refreshing: was?.refreshing ?? null });
}

async function compute(ctx: Ctx, board: string): Promise<void> {
  const repo = await ctx.store.boardRepo(board);
  if (!ctx.git || !repo) return;
  const git = ctx.git;
  const startedAt = ctx.clock.now();
  const trees = new Map<string, TreePending>();
  for (const t of (await git.worktrees(repo.repo)).filter((w) => !w.prunable)) {
    trees.set(t.path, { branch: t.branch, paths: (await git.pending(t.path, repo.target)).paths });
  }
  recordPending(ctx, board, trees, startedAt);
}

function refresh(ctx: Ctx, board: string): Promise<void> {
  const m = boardSnapshots(ctx);
  const s = m.get(board);
  if (s?.refreshing) return s.refreshing;
  const p = compute(ctx, board)
    .catch(() => {})
    .finally(() => {
      const now = m.get(board);
      if (now) now.refreshing = null;
    });
  if (s) s.refreshing = p;
  else m.set(board, { at: 0, trees: new Map(), refreshing: p });
  return p;
}

/**
 * One line for the model when a path it may edit has changes not merged yet in another work tree that no
 * hold covers (a hold would have refused the edit): null when there are none, or coord sees no repository.
 */
export async function pendingElsewhere(
  ctx: Ctx,
  board: string,
  worktree: string | undefined,
  paths: string[],
): Promise<string | null> {
  if (!ctx.git || !worktree) return null;
  const m = boardSnapshots(ctx);
  let s = m.get(board);
  const age = s && s.at > 0 ? ctx.clock.now() - s.at : Number.POSITIVE_INFINITY;
  if (age > FRESH_MS) {
    // Too old to tell (the first decision, or the first after a while idle): a person may have committed or
    // merged meanwhile, so this decision waits for git rather than warn from a stale look.
    await refresh(ctx, board);
    s = m.get(board);
  } else if (age > FRESH_MS / 2) {
    // Looked at again while edits go on, so that a busy session's decisions never wait for git.
    void refresh(ctx, board);
  }
  if (!s) return null;
  const hits: string[] = [];
  let count = 0;
  for (const [tree, t] of s.trees) {
    if (tree === worktree) continue;
    const mine = paths.filter((p) => t.paths.some((q) => overlaps(p, q)));
    if (mine.length === 0) continue;
    count += mine.length;
    hits.push(
      `${mine.slice(0, 5).join(', ')}${mine.length > 5 ? ` and ${mine.length - 5} more` : ''} in worktree ${shortTree(tree, worktree)}${t.branch ? ` (branch ${t.branch})` : ''}`,
    );
  }
  if (hits.length === 0) return null;
  return `coord warning: ${hits.join('; ')} ${count === 1 ? 'has' : 'have'} changes not merged yet that no agent holds — your edit is allowed, but the two will meet when both are merged: keep it small, or ask who works there (coord changes, coord who)`;
}
