/**
 * SPEC §14 "Verified done": a `completed` submit from a work tree records
 * what the task changed — or is refused with `uncommitted_changes` while
 * paths the agent touched are not committed (nothing is written then).
 */

import { overlaps } from '../edits/paths.js';
import { CoordError } from '../errors.js';
import type { Ctx } from '../operation.js';
import type { ChangeRecord } from '../worktrees/git-port.js';
import { shortTree } from '../worktrees/holds.js';
import type { ClaimTree } from '../worktrees/worktree-ports.js';

export interface Verified {
  change: ChangeRecord;
  /** The paths whose locks become the task's holds (the change's paths and what the agent locked there). */
  hold: { agent: string; worktree: string; paths: string[] };
}

/**
 * SPEC §14: the paths a claim touched — what it locked or committed, and every path uncommitted now that was
 * not when the claim began (`dirtyAtClaim`; null when that was not noted: then only the first two).
 */
export function touchedPaths(
  own: string[],
  uncommitted: string[],
  dirtyAtClaim: string[] | null | undefined,
): string[] {
  const before = new Set(dirtyAtClaim ?? uncommitted);
  return [...new Set([...own, ...uncommitted.filter((p) => !before.has(p))])];
}

export async function verifyDone(
  ctx: Ctx,
  input: { task_id: string; claim_id: string; worktree?: string | undefined; allow_dirty?: boolean | undefined },
  /** The claim's work tree, when the store has just named it (a submit held back): not read again. */
  known?: ClaimTree,
): Promise<Verified | null> {
  if (!ctx.git) return null;
  const claimed = known ?? (await ctx.store.claimTree(input.task_id));
  const mine = claimed?.claim_id === input.claim_id ? claimed : null;
  const worktree = input.worktree ?? mine?.worktree;
  if (!worktree) return null;
  const task = await ctx.store.getTask(input.task_id);
  // A replay (or a loss) is answered by the store: the record was fixed at the first submit.
  if (task?.state !== 'claimed' || !task.claimed_by) return null;
  const at = await ctx.git.locate(worktree);
  if (!at?.head) return null;
  const repo = await ctx.store.boardRepo(task.board);
  const target = repo?.target ?? (await ctx.git.defaultTarget(at.commonDir));
  const claimHead = mine && mine.worktree === at.root ? mine.head : null;
  const { record, uncommitted } = await ctx.git.changeRecord(at.root, claimHead, target);
  // What the agent touched: the paths it locked (claim files, auto-locks) from this work tree, and its commits'.
  const locked = (await ctx.store.listLocks(task.board)).filter(
    (l) => l.agent === task.claimed_by && (l.worktree === at.root || l.task_id === task.id),
  );
  const touched = touchedPaths(
    [...locked.flatMap((l) => l.resources), ...record.paths],
    uncommitted,
    mine && mine.worktree === at.root ? mine.dirty : null,
  );
  const dirty = uncommitted.filter((p) => touched.some((t) => overlaps(t, p)));
  if (dirty.length > 0 && !input.allow_dirty) throw uncommittedChanges(input.task_id, at.root, dirty);
  return {
    change: record,
    hold: { agent: task.claimed_by, worktree: at.root, paths: touched },
  };
}

function uncommittedChanges(taskId: string, root: string, dirty: string[]): CoordError {
  const where = shortTree(root, null);
  return new CoordError(
    'uncommitted_changes',
    `${dirty.slice(0, 20).join(', ')}${dirty.length > 20 ? ` and ${dirty.length - 20} more` : ''} in ${where} ${dirty.length === 1 ? 'is' : 'are'} not committed — commit them (git add … && git commit), then submit again; or submit with allow_dirty: true to leave them out`,
    { task_id: taskId, worktree: root, paths: dirty },
  );
}
