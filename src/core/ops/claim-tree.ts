/**
 * SPEC §14 around a claim: the claim remembers the work tree it was made
 * from and its HEAD (the change record counts commits from there), and a
 * claim of a task whose earlier claim left work behind carries that line.
 */

import { isCoordError } from '../errors.js';
import type { ClaimGrant } from '../model.js';
import type { Ctx } from '../operation.js';
import type { WorkTreeFacts } from '../worktrees/git-port.js';
import { noteEndedClaim } from './work-left.js';

/** The prefix of the note coord leaves when a claim ends with work left in its work tree. */
export const WORK_LEFT = 'work left in ';

/** More dirty paths than this at a claim are not noted (the claim's touched paths are then its locks' alone). */
const MAX_DIRTY_NOTED = 5000;

export async function afterClaim(ctx: Ctx, grant: ClaimGrant, tree: WorkTreeFacts | null): Promise<ClaimGrant> {
  // SPEC §14: the claim before this one ended without a submit (released, its session gone, its lease lapsed —
  // a lapse this very claim may have found): its work left is noted now, before this claim's answer, so the
  // answer carries it. Read before this claim records its own work tree over it.
  if (grant.task.attempts > 1 && !grant.reclaimed && ctx.git) {
    const before = await ctx.store.claimTree(grant.task.id);
    // The claim is made: a failure to look is never this claim's failure.
    if (before && before.claim_id !== grant.claim_id)
      await noteEndedClaim(ctx, grant.task, before, null).catch(() => null);
  }
  if (tree && !grant.reclaimed) {
    const dirty = await dirtyAtClaim(ctx, tree.root);
    await ctx.store.recordClaimTree(grant.task.id, {
      claim_id: grant.claim_id,
      worktree: tree.root,
      head: tree.head,
      dirty,
    });
  }
  // Only a task claimed before can have work left behind: a first claim pays nothing more.
  if (grant.task.attempts <= 1) return grant;
  const notes = await ctx.store.taskNotes(grant.task.id, 20);
  const left = notes.notes.filter((n) => n.text.startsWith(WORK_LEFT)).at(-1);
  return left ? { ...grant, work_left: left.text } : grant;
}

/**
 * SPEC §14: "coord notes the work tree's dirty paths at the claim" — a path dirty at submit that was not then
 * was touched by this claim, locked or not. Asked of git afresh: a cached answer could name a path since
 * committed, and a change made to it during the claim would then go unseen.
 */
async function dirtyAtClaim(ctx: Ctx, root: string): Promise<string[] | null> {
  if (!ctx.git) return null;
  try {
    ctx.git.invalidate(root);
    const dirty = await ctx.git.uncommitted(root);
    return dirty.length > MAX_DIRTY_NOTED ? null : dirty;
  } catch (e) {
    if (isCoordError(e)) return null;
    throw e;
  }
}
