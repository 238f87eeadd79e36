/**
 * SPEC §14 in the background: holds end by themselves once their paths are no
 * longer pending, and ended work-tree locks become holds of their pending paths
 * only (looked at every few seconds, and at once when a claim ends), and a claim that ends without a submit is checked for work left in
 * its work tree. SPEC §11: queued work whose head a person merged into the target is recorded merged
 * (`how: contained`) on the same beat, so its dependents become ready. git runs here, off every request's path.
 */
import type { Logger } from 'pino';
import type { CoordEvent } from '../core/model.js';
import type { Ctx } from '../core/operation.js';
import { landContainedAll } from '../core/ops/land-contained.js';
import { settleEnded, settleHolds } from '../core/ops/settle-holds.js';
import { noteWorkLeft } from '../core/ops/work-left.js';

export function keepHolds(ctx: Ctx, log: Logger, everyMs: number): () => void {
  let running = false;
  const settleAll = async () => {
    if (running) return;
    running = true;
    try {
      const boards = new Set([
        ...(await ctx.store.listLocks()).filter((l) => l.hold).map((l) => l.board),
        ...(await ctx.store.endedLocks()).map((l) => l.board),
      ]);
      for (const board of boards) await settleHolds(ctx, board);
    } catch (err) {
      log.warn({ err }, 'checking change holds failed');
    }
    try {
      // SPEC §11: work a person merged lands (its dependents become ready) with no integrator running.
      await landContainedAll(ctx);
    } catch (err) {
      log.warn({ err }, 'looking for merged work failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void settleAll(), everyMs);
  timer.unref();
  const unsubscribe = ctx.store.subscribe((events: CoordEvent[]) => {
    for (const e of events) {
      if (e.type === 'task.requeued' && e.task_id) {
        const taskId = e.task_id;
        // The claim's work-tree locks ended with it: git says first which of them hold on (SPEC §14).
        settleEnded(ctx)
          .catch((err) => log.warn({ err }, 'settling ended locks failed'))
          .then(() => noteWorkLeft(ctx, taskId, e.agent))
          .catch((err) => log.warn({ err, task: taskId }, 'work-left check failed'));
      }
    }
  });
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}
