/**
 * SPEC §14 around a claim: the claim remembers the work tree it was made
 * from and its HEAD (the change record counts commits from there), and a
 * claim of a task whose earlier claim left work behind carries that line.
 */

import type { WorkTreeFacts } from '../git-port.js';
import type { ClaimGrant } from '../model.js';
import type { Ctx } from '../operation.js';

/** The prefix of the note coord leaves when a claim ends with work left in its work tree. */
export const WORK_LEFT = 'work left in ';

export async function afterClaim(ctx: Ctx, grant: ClaimGrant, tree: WorkTreeFacts | null): Promise<ClaimGrant> {
  if (tree && !grant.reclaimed) {
    await ctx.store.recordClaimTree(grant.task.id, { claim_id: grant.claim_id, worktree: tree.root, head: tree.head });
  }
  // Only a task claimed before can have work left behind: a first claim pays nothing more.
  if (grant.task.attempts <= 1) return grant;
  const notes = await ctx.store.taskNotes(grant.task.id, 20);
  const left = notes.notes.filter((n) => n.text.startsWith(WORK_LEFT)).at(-1);
  return left ? { ...grant, work_left: left.text } : grant;
}
