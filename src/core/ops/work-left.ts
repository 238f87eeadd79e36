/**
 * SPEC §14 "No lost work": a claim that ended without a submit while its work
 * tree holds commits since the claim, or uncommitted changes in paths the
 * agent touched, leaves a note on the task saying so (its holds stay; the next
 * claim's answer carries the line). coord only looks: it never resets,
 * cleans, checks out or deletes anything.
 */

import { overlaps } from '../edits/paths.js';
import { isCoordError } from '../errors.js';
import type { Task } from '../model.js';
import type { Ctx } from '../operation.js';
import { shortTree } from '../worktrees/holds.js';
import type { ClaimTree } from '../worktrees/worktree-ports.js';
import { touchedPaths } from './change-record.js';
import { WORK_LEFT } from './claim-tree.js';
import { coordNote } from './worktree-context.js';

/** The folder the repository's paths are shown from: the main work tree (`<main>/.git` → `<main>`). */
const mainTreeOf = (commonDir: string): string => commonDir.replace(/\/\.git\/?$/, '');

export async function noteWorkLeft(ctx: Ctx, taskId: string, agent: string | null): Promise<string | null> {
  if (!ctx.git) return null;
  const tree = await ctx.store.claimTree(taskId);
  const task = await ctx.store.getTask(taskId);
  // A newer claim has already begun (and recorded its own work tree): that is not the claim that ended. The
  // new claim itself looked at the one before it (noteEndedClaim, from afterClaim).
  if (!tree || !task || (task.state === 'claimed' && task.claimed_by !== agent)) return null;
  return noteEndedClaim(ctx, task, tree, agent);
}

/**
 * The note for one ended claim (`tree`, as recorded when it began) of `task`, by `agent` when known: written
 * once whoever asks first — the keeper when the claim ended, or the next claim of the task (a lapsed lease is
 * often found by that claim itself). The same text is one note (coordNote is idempotent on it).
 */
export async function noteEndedClaim(
  ctx: Ctx,
  task: Task,
  tree: ClaimTree,
  agent: string | null,
): Promise<string | null> {
  if (!ctx.git) return null;
  const taskId = task.id;
  try {
    const at = await ctx.git.locate(tree.worktree);
    if (!at?.head) return null;
    const repo = await ctx.store.boardRepo(task.board);
    const target = repo?.target ?? (await ctx.git.defaultTarget(at.commonDir));
    const { record, uncommitted } = await ctx.git.changeRecord(at.root, tree.head, target);
    // The claim's locks have just ended: holds already, or ended locks waiting for git (SPEC §14).
    const locked = [...(await ctx.store.listLocks(task.board)), ...(await ctx.store.endedLocks(task.board))]
      .filter((l) => l.worktree === at.root && ((agent !== null && l.agent === agent) || l.task_id === taskId))
      .flatMap((l) => l.resources);
    // What it touched: what it locked, and every path dirty now that was not when the claim began.
    const touched = touchedPaths(locked, uncommitted, at.root === tree.worktree ? tree.dirty : null);
    const dirty = uncommitted.filter((p) => touched.some((t) => overlaps(t, p)));
    if (record.commits.length === 0 && dirty.length === 0) return null;
    const where = shortTree(at.root, repo ? mainTreeOf(repo.repo) : null);
    const text = `${WORK_LEFT}${where} on branch ${at.branch ?? '(detached)'}: ${workLeft(record.commits, dirty)}`;
    await coordNote(ctx, taskId, 'coord', text);
    return text;
  } catch (e) {
    if (isCoordError(e)) return null;
    throw e;
  }
}

/** `2 commits since the claim (a1b2c3 "subject"), uncommitted: a.ts, b.ts` */
function workLeft(commits: { sha: string; subject: string }[], dirty: string[]): string {
  const parts: string[] = [];
  if (commits.length > 0) {
    const last = commits[0];
    parts.push(
      `${commits.length} commit${commits.length === 1 ? '' : 's'} since the claim${last ? ` (${last.sha.slice(0, 6)} "${last.subject.slice(0, 60)}")` : ''}`,
    );
  }
  if (dirty.length > 0) parts.push(`uncommitted: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ' …' : ''}`);
  return parts.join(', ');
}
