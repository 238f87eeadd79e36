/**
 * SPEC §15 "Speculative window", the integrator's side: the next `window` tasks merged cumulatively and
 * checked at once (integrate-window.ts); the target advanced to the longest green prefix; a red task out and
 * the rest merged again without it. The window halves (not below 1) after a failure and grows by one after a
 * green window, back up to N. With `--lanes`, the order is split into lanes (integration-lanes.ts), each with
 * its own window, run at the same time: no lane waits for another's checks, only for its landing (a few git
 * commands).
 */
import type { QueuedIntegration } from '../core/integration/integration.js';
import { splitLanes } from '../core/integration/integration-lanes.js';
import { atMost, changedPaths, oneAtATime } from './integrate-lanes.js';
import type { CheckVerdict } from './integrate-merge.js';
import { mergeMessage } from './integrate-record.js';
import { fetchBranch, fetchTaskHead, remoteTarget, trackingRef } from './integrate-remote.js';
import { integrateWindow } from './integrate-window.js';
import type { IntegratorOptions } from './integrator-port.js';
import type { IntegrationSlot } from './integrator-slot.js';
import type { RefSwapper } from './ref-swapper.js';
import type { TargetState } from './target-repair.js';
import type { TurnRecorder } from './turn-recorder.js';

/** What the integrator lends its windows for one turn. */
export interface WindowsContext {
  opts: IntegratorOptions;
  /** The branch this turn merges into. */
  target: string;
  /** The window's size: as the turn starts, and set for the next one as the windows end. */
  window: { n: number };
  slot: IntegrationSlot;
  /** `--check` on a merged commit, with its retries. */
  check: (repo: string, commit: string, label: string) => Promise<CheckVerdict>;
}

/** What one lane's windows share with the turn (and, with `--lanes`, with the other lanes). */
interface LaneRun {
  repo: string;
  queue: QueuedIntegration[];
  swapper: RefSwapper;
  recorder: TurnRecorder;
  /** The lane's window size now: halves after a red check, grows back by one. */
  size: { n: number };
  /** Lanes: their landings one at a time. */
  land?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Lanes: `--jobs` across all of them. */
  limit?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Lanes: this lane's number (1, 2, …), named in its windows' events. */
  laneNo?: number;
}

/**
 * The speculative window (and lanes) are used with a check, one repository and no review (SPEC §15
 * `--window`); with `--push` the chain is built on the remote's tip and pushed.
 */
export function windowed(o: IntegratorOptions): boolean {
  const batched = (o.window ?? 1) > 1 || o.lanes !== undefined;
  return batched && o.check !== undefined && o.repo !== null && !o.review;
}

/** The turn's order, window after window (in lanes with `--lanes`). */
export async function runWindows(
  ctx: WindowsContext,
  order: QueuedIntegration[],
  queue: QueuedIntegration[],
  targets: Map<string, TargetState>,
  swapper: RefSwapper,
  recorder: TurnRecorder,
): Promise<void> {
  const repo = ctx.opts.repo ?? '.';
  const target = targets.get(repo);
  if (target && !target.ok) {
    for (const q of order) if (recorder.report(q, { state: 'blocked', reason: target.reason })) return;
    return;
  }
  const run: LaneRun = { repo, queue, swapper, recorder, size: { n: ctx.window.n } };
  if (!ctx.opts.lanes) {
    await lane(ctx, order, run);
    ctx.window.n = run.size.n;
    return;
  }
  const paths = await lanePaths(ctx, repo, order);
  const lanes = splitLanes(order, (q) => paths.get(q.head) ?? null, ctx.opts.lanes.scopes);
  const land = oneAtATime();
  const limit = atMost(ctx.opts.maxChecks ?? Number.POSITIVE_INFINITY);
  const runs = lanes.map((_, i): LaneRun => ({ ...run, size: { n: ctx.window.n }, land, limit, laneNo: i + 1 }));
  const ended = await Promise.allSettled(lanes.map((l, i) => lane(ctx, l, runs[i] as LaneRun)));
  ctx.window.n = Math.min(ctx.opts.window ?? 1, ...runs.map((r) => r.size.n));
  for (const e of ended) if (e.status === 'rejected') throw e.reason;
}

/** The paths each task's head changes; with `--push`, against the remote's target, its commits fetched first. */
async function lanePaths(
  ctx: WindowsContext,
  repo: string,
  order: QueuedIntegration[],
): Promise<Map<string, string[]>> {
  const remote = ctx.opts.push;
  const heads = order.map((q) => q.head);
  if (remote === undefined) return changedPaths(repo, `refs/heads/${ctx.target}`, heads);
  await fetchBranch(repo, remote, ctx.target);
  for (const q of order) await fetchTaskHead(repo, remote, q.branch, q.head);
  return changedPaths(repo, trackingRef(remote, ctx.target), heads);
}

/** One lane's tasks (all of them without `--lanes`), window after window, in order. */
async function lane(ctx: WindowsContext, left: QueuedIntegration[], run: LaneRun): Promise<void> {
  const n = ctx.opts.window ?? 1;
  while (left.length > 0) {
    run.recorder.stopIfFailed();
    // A task with dependents ends the window: they are merged after it, at the next turn.
    const size = Math.min(run.size.n, left.length);
    const cut = left.slice(0, size).findIndex((q) => run.queue.some((d) => d.blocked_by.includes(q.task_id)));
    const batch = left.slice(0, cut === -1 ? size : cut + 1);
    const byTask = new Map(batch.map((q) => [q.task_id, q]));
    const result = await ctx.slot.renewing(() => oneWindow(ctx, batch, run));
    let stop = false;
    for (const d of result.decided) {
      const q = byTask.get(d.task.id);
      if (q && run.recorder.report(q, d.outcome)) stop = true;
    }
    run.size.n = result.red ? Math.max(1, Math.floor(run.size.n / 2)) : Math.min(n, run.size.n + 1);
    const done = new Set(result.decided.map((d) => d.task.id));
    if (stop || done.size === 0) return;
    left = left.filter((q) => !done.has(q.task_id));
  }
}

/** One window of `batch`: merged, checked and landed by integrate-window.ts. */
function oneWindow(ctx: WindowsContext, batch: QueuedIntegration[], run: LaneRun) {
  const limit = run.limit ?? (<T>(fn: () => Promise<T>) => fn());
  const push = ctx.opts.push;
  return integrateWindow({
    repo: run.repo,
    target: ctx.target,
    tasks: batch.map((q) => ({
      id: q.task_id,
      head: q.head,
      branch: q.branch,
      message: mergeMessage(q.task_id, q.title),
    })),
    jobs: ctx.opts.jobs ?? ctx.opts.window ?? 1,
    check: (commit, t) => limit(() => ctx.check(run.repo, commit, t.id)),
    onChecking: (tasks) =>
      run.recorder.announce(
        tasks.map((t) => t.id),
        run.size.n,
        run.laneNo,
      ),
    beforeSwap: () => {
      run.recorder.stopIfFailed();
      return ctx.slot.renew();
    },
    swapper: run.swapper,
    lane: run.land ? { land: run.land } : undefined,
    remote: push === undefined ? undefined : remoteTarget(run.repo, push, ctx.target),
  });
}
