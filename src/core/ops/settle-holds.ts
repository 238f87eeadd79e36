/**
 * SPEC §14: a hold ends by itself once its paths are no longer pending in its
 * work tree (merged into the target, reverted, or the work tree removed).
 * Checked in the background (the daemon's sweep) and at each decision that
 * meets a hold, so a stale hold never blocks anyone.
 */
import { CoordError, isCoordError } from '../errors.js';
import type { Ctx } from '../operation.js';
import type { Lost, Outcome } from '../ports.js';
import { conflictLine, holdAdvice, holdTrims } from '../worktrees/holds.js';

/**
 * Narrows or ends the board's holds that git says are no longer pending, and settles its ended work-tree
 * locks (their pending keys become holds, the rest end); `trees` limits which are looked at, `endedOnly`
 * looks at ended locks alone.
 */
export async function settleHolds(
  ctx: Ctx,
  board: string,
  trees?: Set<string>,
  opts: { endedOnly?: boolean; lookedAt?: string | undefined } = {},
): Promise<number> {
  if (!ctx.git) return 0;
  const repo = await ctx.store.boardRepo(board);
  if (!repo) return 0;
  const wanted = (tree: string | null): tree is string => tree !== null && (!trees || trees.has(tree));
  const held = opts.endedOnly
    ? []
    : (await ctx.store.listLocks(board)).flatMap((l) =>
        l.hold && wanted(l.worktree) ? [{ lock_id: l.lock_id, worktree: l.worktree, resources: l.resources }] : [],
      );
  const ended = (await ctx.store.endedLocks(board)).flatMap((l) =>
    wanted(l.worktree) ? [{ lock_id: l.lock_id, worktree: l.worktree, resources: l.resources, ended: true }] : [],
  );
  const holds = [...held, ...ended];
  if (holds.length === 0) return 0;
  const pending = new Map<string, string[] | null>();
  for (const tree of new Set(holds.map((h) => h.worktree))) {
    try {
      // Ending a hold lets another work tree in: decide on what git says now, never on a cached answer — but for
      // the work tree this same operation has just asked git about (a submit's change record, moments ago).
      if (tree !== opts.lookedAt) ctx.git.invalidate(tree);
      const at = await ctx.git.locate(tree);
      // A work tree removed (or no longer this repository's) holds nothing back.
      pending.set(tree, at && at.root === tree ? (await ctx.git.pending(tree, repo.target)).paths : null);
    } catch (e) {
      // git failing says nothing about the work: the hold stays.
      if (!isCoordError(e)) throw e;
    }
  }
  return ctx.store.trimHolds(holdTrims(holds, pending));
}

/**
 * Settles every ended work-tree lock (after an unlock, a submit, a session's end): nothing is held that is not
 * pending. `lookedAt`: a work tree the caller has just looked at with git itself (a submit's), not asked again.
 */
export async function settleEnded(ctx: Ctx, lookedAt?: string): Promise<number> {
  if (!ctx.git) return 0;
  const boards = new Set((await ctx.store.endedLocks()).map((l) => l.board));
  let n = 0;
  for (const board of boards) n += await settleHolds(ctx, board, undefined, { endedOnly: true, lookedAt });
  return n;
}

/**
 * Runs a lock-taking write; if it lost to a hold, checks that hold's work tree with git, ends what is no
 * longer pending, and tries once more.
 */
export async function honouringHolds<T>(
  ctx: Ctx,
  board: string,
  attempt: () => Promise<Outcome<T>>,
): Promise<Outcome<T>> {
  const first = await attempt();
  if (first.ok || first.reason !== 'lock_conflict' || !ctx.git) return first;
  const trees = new Set(first.conflicts.flatMap((c) => (c.hold && c.worktree ? [c.worktree] : [])));
  if (trees.size === 0) return first;
  // An ended lock not yet swept into a hold was made one by the attempt; look at it now. Try again even when
  // this look ended nothing: the keeper (or another daemon) may have ended the hold since the attempt.
  await settleHolds(ctx, board, trees);
  return attempt();
}

/** A lost lock_conflict as the caller reads it: holds name their work tree, branch and task. */
export async function lockConflictError(ctx: Ctx, lost: Lost, from: string | null): Promise<CoordError | null> {
  if (lost.reason !== 'lock_conflict') return null;
  const branches = new Map<string, string | null>();
  for (const c of lost.conflicts) {
    if (!c.hold || !c.worktree || branches.has(c.worktree)) continue;
    branches.set(c.worktree, ctx.git ? ((await ctx.git.locate(c.worktree).catch(() => null))?.branch ?? null) : null);
  }
  const lines = [
    ...new Set(lost.conflicts.map((c) => conflictLine({ ...c, branch: branches.get(c.worktree ?? '') ?? null }, from))),
  ];
  const anyHold = lost.conflicts.some((c) => c.hold);
  return new CoordError(
    'lock_conflict',
    `${lines.join('; ')} — ${anyHold ? holdAdvice : 'work on something else or ask the holder'}`,
    { conflicts: lost.conflicts },
  );
}
