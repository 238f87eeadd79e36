/**
 * SPEC §11: work merged by a person counts. A completed task waiting in the integration queue whose recorded
 * head is already in the board's target was merged with no integrator running: it is recorded merged (`how:
 * contained`) and lands, so its dependents become ready. Checked in the background, as holds are (§14).
 */
import { isCoordError } from '../errors.js';
import type { Ctx } from '../operation.js';
import { settleHolds } from './settle-holds.js';

/** Records merged every task of the board's queue whose head is in the target; answers how many. */
export async function landContained(ctx: Ctx, board: string): Promise<number> {
  if (!ctx.git) return 0;
  const repo = await ctx.store.boardRepo(board);
  if (!repo) return 0;
  let landed = 0;
  for (const q of await ctx.store.integrationQueue(board)) {
    try {
      if (!(await ctx.git.contains(repo.repo, repo.target, q.head))) continue;
    } catch (e) {
      // git failing says nothing about the work: it waits for the next look.
      if (!isCoordError(e)) throw e;
      continue;
    }
    const out = await ctx.store.recordContained({ task_id: q.task_id, head: q.head, target: repo.target });
    if (out.recorded) landed++;
  }
  // Merged: the tasks' holds end now, as the integrator's merges end them.
  if (landed > 0) await settleHolds(ctx, board).catch(() => 0);
  return landed;
}

/** Every board with work in its integration queue. */
export async function landContainedAll(ctx: Ctx): Promise<number> {
  let n = 0;
  for (const board of await ctx.store.integrationBoards()) n += await landContained(ctx, board);
  return n;
}
