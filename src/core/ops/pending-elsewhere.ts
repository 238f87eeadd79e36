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
import type { GitPort } from '../worktrees/git-port.js';
import { shortTree } from '../worktrees/holds.js';

/** A snapshot older than this is refreshed in the background; the decision reads it meanwhile. */
const FRESH_MS = 2000;
/** How many work trees' looks run at once. */
const LOOKS_AT_ONCE = 4;

interface TreePending {
  branch: string | null;
  paths: string[];
  /** When git was asked (the snapshot's own time when not said). */
  at?: number;
  /** `paths` indexed on first use, so a decision costs the same with 1 or 1,000 pending paths. */
  index?: OverlapIndex;
}

export interface PendingSnapshot {
  at: number;
  trees: Map<string, TreePending>;
  refreshing: Promise<void> | null;
  /** The refs stamps taken before the look (stampOf): a different one now means it is stale. */
  stamp?: PendingStamp | undefined;
}

/**
 * GitPort.refsStamp of what every tree shares (packed-refs, the list of work trees, the target's ref) and of
 * each tree on its own: a decision in one work tree is stale only when what the others would bring moved —
 * its own commit (HEAD, index, branch) changes nothing it is warned about.
 */
export interface PendingStamp {
  repo: string;
  target: string;
  shared: string;
  /** The stamp of all of it at once: equal on the next decision (the usual case), nothing moved. */
  all: string;
  /** What every tree's pending paths depend on besides its own refs: the target's ref (and packed-refs). */
  refs: string;
  /** Each tree's own files alone (its HEAD, index, branch): unchanged by a tree added or removed beside it. */
  own: Map<string, string>;
}

export function stampOf(git: GitPort, repo: string, target: string, trees: readonly string[]): PendingStamp {
  return {
    repo,
    target,
    shared: git.refsStamp(repo, [], target),
    all: git.refsStamp(repo, trees, target),
    refs: git.refsStamp(repo, [], target, { list: false }),
    own: new Map(trees.map((t) => [t, git.refsStamp(repo, [t], target, { shared: false })])),
  };
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
  const stamp = stampOf(
    git,
    repo.repo,
    repo.target,
    listed.map((t) => t.path),
  );
  // A tree whose own refs did not move since a look of the last FRESH_MS, while the target did not either, would
  // bring what that look found: kept, not looked at again. Another agent's commit moves its own tree only, and a
  // work tree added or removed moves none of the others: a decision then waits for the trees that moved.
  const was = boardSnapshots(ctx).get(board);
  const moved = (path: string) => was?.stamp?.own.get(path) !== stamp.own.get(path);
  const keep = (path: string): TreePending | undefined => {
    const before = was?.trees.get(path);
    if (!was?.stamp || !before || was.stamp.refs !== stamp.refs || moved(path)) return undefined;
    return startedAt - (before.at ?? was.at) < FRESH_MS ? before : undefined;
  };
  const trees = new Map<string, TreePending>();
  const toLook = listed.filter((t) => {
    const same = keep(t.path);
    if (same && same.branch === t.branch) trees.set(t.path, same);
    return !trees.has(t.path);
  });
  // A tree whose refs moved is asked afresh: its HEAD (and status) kept from a look a moment ago would miss the
  // very commit that moved them, and this look would then pass for fresh under the new stamp.
  for (const t of toLook) if (moved(t.path)) git.invalidate(t.path);
  // The trees are looked at a few at a time (each look is git processes): a decision that waits for this look
  // waits for the slowest few, not for their sum.
  for (let i = 0; i < toLook.length; i += LOOKS_AT_ONCE) {
    const some = toLook.slice(i, i + LOOKS_AT_ONCE);
    const looked = await Promise.all(
      some.map(async (t) => ({ t, paths: (await git.pending(t.path, repo.target)).paths })),
    );
    for (const { t, paths } of looked) trees.set(t.path, { branch: t.branch, paths, at: startedAt });
  }
  recordPending(ctx, board, trees, startedAt, stamp);
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
 * What moved since the snapshot's look (refs, HEADs, indexes): `stale` when it is what a decision in `worktree` is
 * warned about — the shared refs or another tree; `own` when only that tree moved (a snapshot `changes` recorded
 * without a stamp never moved).
 */
function moved(ctx: Ctx, s: PendingSnapshot, worktree: string): 'stale' | 'own' | null {
  const git = ctx.git;
  const stamp = s.stamp;
  if (!git || !stamp) return null;
  // One stamp of everything first (each shared file stated once); only when it moved, what moved.
  if (git.refsStamp(stamp.repo, [...stamp.own.keys()], stamp.target) === stamp.all) return null;
  if (git.refsStamp(stamp.repo, [], stamp.target) !== stamp.shared) return 'stale';
  let own = false;
  for (const [tree, value] of stamp.own) {
    if (git.refsStamp(stamp.repo, [tree], stamp.target, { shared: false }) === value) continue;
    if (tree !== worktree) return 'stale';
    own = true;
  }
  return own ? 'own' : null;
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
  const since = s && s.at !== 0 ? moved(ctx, s, worktree) : 'stale';
  if (!s || since === 'stale') {
    // The board's first decision, or something was committed, merged, reset or checked out since the last look
    // (a person's commit, a merge into the target) in another work tree: this decision waits for git rather than
    // warn from a stale look. The stamp is file stats only, so a decision pays for git only when refs moved;
    // its own tree's commits leave it be (they are refreshed in the background like uncommitted edits).
    await refresh(ctx, board);
    s = m.get(board);
  } else if (since === 'own' || ctx.clock.now() - s.at > FRESH_MS) {
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
