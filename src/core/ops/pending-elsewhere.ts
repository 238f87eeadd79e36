/**
 * SPEC §14: "an unheld pending path in another work tree gives a warning
 * line, not a block". What each work tree of a board's repository would bring
 * into the target is kept as a snapshot per board, so the edit decision reads
 * it from memory: git runs off the decision's path (refreshed in the
 * background once the snapshot is a few seconds old, and by `changes` /
 * `worktrees`, which compute it anyway). A decision waits for git only when
 * it must: the board's first, and one that finds the refs moved since the
 * last look (a stamp of file stats, GitPort.refsStamp) — a stale look would
 * warn about work merged meanwhile and miss work committed meanwhile.
 */

import { type OverlapIndex, overlapIndex } from '../edits/paths.js';
import type { Ctx } from '../operation.js';
import { shortTree } from '../worktrees/holds.js';

/** A snapshot older than this is refreshed in the background; the decision reads it meanwhile. */
const FRESH_MS = 2000;
/** How many work trees' looks run at once. */
const LOOKS_AT_ONCE = 4;

interface TreePending {
  branch: string | null;
  paths: string[];
  /** `paths` indexed on first use, so a decision costs the same with 1 or 1,000 pending paths. */
  index?: OverlapIndex;
}

export interface PendingSnapshot {
  at: number;
  trees: Map<string, TreePending>;
  refreshing: Promise<void> | null;
  /** The refs stamp taken before the look (GitPort.refsStamp): a different one now means it is stale. */
  stamp?: { repo: string; target: string; value: string } | undefined;
}

/** Per board, in the daemon's memory (ctx.presence). */
const boardSnapshots = (ctx: Ctx): Map<string, PendingSnapshot> => ctx.presence.pending;

/** What `changes` has just computed: kept for the edit decisions that follow. */
export function recordPending(
  ctx: Ctx,
  board: string,
  trees: Map<string, TreePending>,
  startedAt: number = ctx.clock.now(),
  stamp?: PendingSnapshot['stamp'],
): void {
  const m = boardSnapshots(ctx);
  const was = m.get(board);
  // A slower look that began before the one kept (a background refresh finishing after `changes`) would put
  // older facts back.
  if (was && was.at > startedAt) return;
  m.set(board, { at: startedAt, trees, refreshing: was?.refreshing ?? null, stamp });
}

async function compute(ctx: Ctx, board: string): Promise<void> {
  const repo = await ctx.store.boardRepo(board);
  if (!ctx.git || !repo) return;
  const git = ctx.git;
  const startedAt = ctx.clock.now();
  const listed = (await git.worktrees(repo.repo)).filter((w) => !w.prunable);
  // Stamped before git looks: whatever is committed while it looks makes the stamp differ next time.
  const value = git.refsStamp(
    repo.repo,
    listed.map((t) => t.path),
    repo.target,
  );
  // The trees are looked at a few at a time (each look is git processes): a decision that waits for this look
  // waits for the slowest few, not for their sum.
  const trees = new Map<string, TreePending>();
  for (let i = 0; i < listed.length; i += LOOKS_AT_ONCE) {
    const some = listed.slice(i, i + LOOKS_AT_ONCE);
    const looked = await Promise.all(some.map((t) => git.pending(t.path, repo.target)));
    some.forEach((t, k) => trees.set(t.path, { branch: t.branch, paths: looked[k]?.paths ?? [] }));
  }
  recordPending(ctx, board, trees, startedAt, { repo: repo.repo, target: repo.target, value });
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

/** Whether refs, HEADs or indexes moved since the snapshot's look (a snapshot `changes` recorded has no stamp). */
function stale(ctx: Ctx, s: PendingSnapshot): boolean {
  if (!ctx.git || !s.stamp) return false;
  return ctx.git.refsStamp(s.stamp.repo, [...s.trees.keys()], s.stamp.target) !== s.stamp.value;
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
  if (!s || s.at === 0 || stale(ctx, s)) {
    // The board's first decision, or something was committed, merged, reset or checked out since the last look
    // (a person's commit, a merge into the target): this decision waits for git rather than warn from a stale
    // look. The stamp is file stats only, so a decision pays for git only when refs moved.
    await refresh(ctx, board);
    s = m.get(board);
  } else if (ctx.clock.now() - s.at > FRESH_MS) {
    // Uncommitted edits leave no trace in the refs: looked at again in the background while the decision reads it.
    void refresh(ctx, board);
  }
  if (!s) return null;
  const hits: string[] = [];
  let count = 0;
  for (const [tree, t] of s.trees) {
    if (tree === worktree) continue;
    t.index ??= overlapIndex(t.paths);
    const index = t.index;
    const mine = paths.filter((p) => index(p));
    if (mine.length === 0) continue;
    count += mine.length;
    hits.push(
      `${mine.slice(0, 5).join(', ')}${mine.length > 5 ? ` and ${mine.length - 5} more` : ''} in worktree ${shortTree(tree, worktree)}${t.branch ? ` (branch ${t.branch})` : ''}`,
    );
  }
  if (hits.length === 0) return null;
  return `coord warning: ${hits.join('; ')} ${count === 1 ? 'has' : 'have'} changes not merged yet that no agent holds — your edit is allowed, but the two will meet when both are merged: keep it small, or ask who works there (coord changes, coord who)`;
}
