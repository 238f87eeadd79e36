/**
 * The integrator (SPEC §15): takes the board's slot, merges what the queue's order allows, and records
 * each result through the board — from the daemon (`serve --integrate`) or a CLI process
 * (`coord integrate`), which differ only in how they reach the board (`IntegratorBoard`).
 *
 * Exactly once rests on two fences. The slot keeps two integrators from working one board at once (it is
 * renewed while a check runs and just before each swap; one that lost it stops). And the target moves only
 * by compare-and-swap: a task merged by an integrator that died before recording it is found already in
 * the target at the next turn and recorded merged with no second commit.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { integrationOrder, type QueuedIntegration, SLOT_LEASE_MS } from '../core/integration.js';
import { splitLanes } from '../core/integration-lanes.js';
import type { RecordIntegrationInput, RecordWindowInput, TakeSlotOutput } from '../core/integration-schemas.js';
import { cleanLeftoverChecks, runCheck } from './integrate-check.js';
import { atMost, changedPaths, oneAtATime } from './integrate-lanes.js';
import { type CheckVerdict, integrateHead, type MergeOutcome } from './integrate-merge.js';
import { fetchBranch, fetchTaskHead, remoteTarget, trackingRef } from './integrate-remote.js';
import { integrateWindow } from './integrate-window.js';
import { RefSwapper } from './ref-swapper.js';
import { repairTarget, type TargetState } from './target-repair.js';

export type RecordInput = z.input<typeof RecordIntegrationInput>;

/** How an integrator reaches the board: the operations of core/ops/integration.ts, called in process or over HTTP. */
export interface IntegratorBoard {
  takeSlot(input: {
    board: string;
    holder: string;
    slot_id: string;
    lease_s: number;
  }): Promise<z.output<typeof TakeSlotOutput>>;
  releaseSlot(input: { board: string; slot_id: string }): Promise<unknown>;
  queue(board: string): Promise<QueuedIntegration[]>;
  record(input: RecordInput): Promise<{ followup_id: string | null }>;
  /** SPEC §15: a window's tasks are being checked together (event integration.window, for the views). */
  window(input: z.input<typeof RecordWindowInput>): Promise<{ recorded: boolean }>;
}

export interface IntegratorOptions {
  board: string;
  /** The repository to merge in; null: each task's own work tree (from its change record). */
  repo: string | null;
  target: string;
  /**
   * The board's target as it is now (`coord target BRANCH`), asked at every turn: a change takes effect at
   * the next merge (SPEC §15). Without it, `target` throughout.
   */
  currentTarget?: (() => Promise<string>) | undefined;
  stateDir: string;
  /** `--check CMD` and its time limit. */
  check?: { command: string; timeoutMs: number } | undefined;
  /** `--window N`: how many tasks are merged and checked at once (default 1, one at a time). */
  window?: number | undefined;
  /** `--check-retries K`: a failing check runs again up to K times; passing on a retry is `flaky`. */
  checkRetries?: number | undefined;
  /** `--jobs J`: how many checks of a window run at once (default: the window). */
  jobs?: number | undefined;
  /** `--lanes` (with its `--scope` globs): tasks changing no common path are checked at the same time. */
  lanes?: { scopes: string[] } | undefined;
  /** With lanes: at most this many checks at once across all lanes (`--jobs` as given); absent, no cap. */
  maxChecks?: number | null | undefined;
  /** `--review`: a ready merge waits for `coord approve`. */
  review?: boolean;
  /** `--push REMOTE`: the target is REMOTE's branch, fetched and advanced by push (integrate-remote.ts). */
  push?: string | undefined;
  /** Named to a second integrator that finds the slot taken. */
  holder: string;
  leaseMs?: number;
  /** Hears that a checked-out target left behind by an interrupted integrator was brought up to date. */
  onRepair?: ((r: { worktree: string; from: string; to: string }) => void) | undefined;
  /** Hears each result, for the CLI's lines and the daemon's log. */
  onResult?: (task: QueuedIntegration, result: TurnResult) => void;
}

/** What one lane's windows share with the turn (and, with `--lanes`, with the other lanes). */
interface LaneRun {
  repo: string;
  queue: QueuedIntegration[];
  swapper: RefSwapper;
  report: (q: QueuedIntegration, outcome: MergeOutcome) => boolean;
  stopIfFailed: () => void;
  /** The lane's window size now: halves after a red check, grows back by one. */
  size: { n: number };
  /** Lanes: their landings one at a time. */
  land?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Lanes: `--jobs` across all of them. */
  limit?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Lanes: this lane's number (1, 2, …), named in its windows' events. */
  laneNo?: number;
  /** Publishes that a window's checks begin, in order with the turn's records (integration.window). */
  announce: (tasks: string[], size: number, lane: number | undefined) => void;
}

export type TurnResult = (MergeOutcome | { state: 'ready'; commit: string }) & {
  followup_id?: string | null;
  /** The same `blocked` as already recorded: nothing was recorded again. */
  repeated?: boolean;
};

/** The slot was taken by another integrator meanwhile: stop this turn, record nothing more. */
export class SlotLost extends Error {
  override readonly name = 'SlotLost';
}

const short = (sha: string) => sha.slice(0, 7);

/** The merge commit's message: the merge engine finds its own merge of a task by it after a crash. */
export const mergeMessage = (task_id: string, title: string) => `coord: integrate #${task_id} ${title}`;

export class Integrator {
  readonly slotId = randomBytes(16).toString('hex');
  private readonly leaseMs: number;
  /** The branch this turn merges into. */
  private targetNow: string;
  /** The speculative window's current size (SPEC §15): starts at `--window`, halves on a failure. */
  private window: number;
  /** When the slot was last taken or renewed (this process's monotonic clock). */
  private takenAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly board: IntegratorBoard,
    private readonly opts: IntegratorOptions,
  ) {
    this.leaseMs = opts.leaseMs ?? SLOT_LEASE_MS;
    this.targetNow = opts.target;
    this.window = Math.max(1, opts.window ?? 1);
  }

  /** The branch the current (or last) turn merges into. */
  get target(): string {
    return this.targetNow;
  }

  /** Removes check work trees a crashed integrator left. Run once before the first turn. */
  start(): Promise<string[]> {
    return cleanLeftoverChecks(this.opts.stateDir);
  }

  /** Takes or renews the slot; the answer names the holder when another integrator has it. */
  async takeSlot(): Promise<z.output<typeof TakeSlotOutput>> {
    const asked = performance.now();
    const slot = await this.board.takeSlot({
      board: this.opts.board,
      holder: this.opts.holder,
      slot_id: this.slotId,
      lease_s: Math.max(1, Math.round(this.leaseMs / 1000)),
    });
    // Counted from the request, not the answer: the lease began no earlier than that.
    this.takenAt = slot.ok ? asked : Number.NEGATIVE_INFINITY;
    return slot;
  }

  async releaseSlot(): Promise<void> {
    await this.board.releaseSlot({ board: this.opts.board, slot_id: this.slotId });
  }

  /**
   * Before a swap (and while a check runs): the slot must still be ours with time to spare. A lease taken
   * less than a third of its length ago is kept as it is, which saves a write per merge; older, it is
   * renewed, and a lost one stops this integrator before it moves the target.
   */
  private async renew(): Promise<void> {
    if (performance.now() - this.takenAt < this.leaseMs / 3) return;
    const slot = await this.takeSlot();
    if (!slot.ok) throw new SlotLost(`the integration slot of ${this.opts.board} was taken by ${slot.holder}`);
  }

  /**
   * One turn: take the slot, then try every task the order allows now. Answers how many results were
   * recorded that changed something (0: nothing to do, or the slot is another integrator's).
   */
  async turn(): Promise<{ busy: string | null; progressed: number }> {
    const slot = await this.takeSlot();
    if (!slot.ok) return { busy: slot.holder ?? 'another integrator', progressed: 0 };
    const queue = await this.board.queue(this.opts.board);
    if (this.opts.currentTarget) this.targetNow = await this.opts.currentTarget();
    // Before anything else: a checked-out target an interrupted integrator left behind is brought up to date.
    const targets = new Map<string, TargetState>();
    const repos = this.opts.repo !== null ? [this.opts.repo] : queue.map((q) => this.repoOf(q));
    for (const repo of new Set(repos)) {
      const state = await repairTarget(repo, this.targetNow);
      targets.set(repo, state);
      if (state.ok && state.repaired) this.opts.onRepair?.(state.repaired);
    }
    // SPEC §15: a conflict or failed check is tried again only once a submit recorded another head for it.
    const moved = (q: QueuedIntegration) => q.tried_head !== q.head;
    let progressed = 0;
    // The turn's swaps share one `git update-ref --stdin` per repository.
    const swapper = new RefSwapper();
    // Results are recorded in order, each while the next task's merge runs in git. A target already moved
    // and not yet recorded is what a crash between swap and record leaves too: the next turn records it.
    let recording: Promise<void> = Promise.resolve();
    let failed: { error: unknown } | null = null;
    const stopIfFailed = () => {
      if (failed) throw failed.error;
    };
    // Hands one result to the recorder; answers whether the turn stops after it (a blocker merged).
    const report = (q: QueuedIntegration, outcome: MergeOutcome): boolean => {
      if (outcome.state === 'blocked' && q.state === 'blocked' && q.reason === outcome.reason) {
        // Nothing new to record, but the caller still hears it (`--once` exits 2 for it).
        this.opts.onResult?.(q, { ...outcome, repeated: true });
        return false;
      }
      progressed++;
      recording = recording.then(() =>
        this.record(q, q.head, outcome).then(
          (followup_id) => this.opts.onResult?.(q, { ...outcome, followup_id }),
          (error: unknown) => {
            failed ??= { error };
          },
        ),
      );
      // A blocker merged in this turn frees its dependents only at the next turn: the queue is read again.
      return outcome.state === 'merged' && queue.some((d) => d.blocked_by.includes(q.task_id));
    };
    // The views show which tasks are checked together (SPEC §19); the event goes out in order with the
    // records, so each task's result comes after it. Only a display: a failure to publish stops nothing.
    const announce = (tasks: string[], size: number, lane: number | undefined) => {
      const input = { board: this.opts.board, slot_id: this.slotId, target: this.targetNow, tasks, size };
      recording = recording.then(() =>
        this.board.window(lane === undefined ? input : { ...input, lane }).then(
          () => undefined,
          () => undefined,
        ),
      );
    };
    const order = integrationOrder(queue, moved, this.opts.review ?? false);
    try {
      if (this.windowed()) {
        await this.windows(order, queue, targets, swapper, report, stopIfFailed, announce);
      } else {
        for (const q of order) {
          if (failed) break;
          const target = targets.get(this.repoOf(q));
          // Only what a submit recorded: never the branch's tip (work in progress, a re-created branch).
          const outcome: MergeOutcome =
            target && !target.ok
              ? { state: 'blocked', reason: target.reason }
              : await this.merge(q, q.head, swapper, stopIfFailed);
          if (report(q, outcome)) break;
        }
      }
    } finally {
      swapper.close();
      await recording;
    }
    stopIfFailed();
    return { busy: null, progressed };
  }

  /**
   * The speculative window (and lanes) are used with a check, one repository and no review (SPEC §15
   * `--window`); with `--push` the chain is built on the remote's tip and pushed.
   */
  private windowed(): boolean {
    const o = this.opts;
    const batched = (o.window ?? 1) > 1 || o.lanes !== undefined;
    return batched && o.check !== undefined && o.repo !== null && !o.review;
  }

  /**
   * SPEC §15 "Speculative window": the next `window` tasks merged cumulatively and checked at once; the
   * target advanced to the longest green prefix; a red task out and the rest merged again without it. The
   * window halves (not below 1) after a failure and grows by one after a green window, back up to N.
   * With `--lanes`, the order is split into lanes (integration-lanes.ts), each with its own window, run at
   * the same time: no lane waits for another's checks, only for its landing (a few git commands).
   */
  private async windows(
    order: QueuedIntegration[],
    queue: QueuedIntegration[],
    targets: Map<string, TargetState>,
    swapper: RefSwapper,
    report: (q: QueuedIntegration, outcome: MergeOutcome) => boolean,
    stopIfFailed: () => void,
    announce: LaneRun['announce'],
  ): Promise<void> {
    const repo = this.opts.repo ?? '.';
    const target = targets.get(repo);
    if (target && !target.ok) {
      for (const q of order) if (report(q, { state: 'blocked', reason: target.reason })) return;
      return;
    }
    const run: LaneRun = { repo, queue, swapper, report, stopIfFailed, announce, size: { n: this.window } };
    if (!this.opts.lanes) {
      await this.lane(order, run);
      this.window = run.size.n;
      return;
    }
    const paths = await this.lanePaths(repo, order);
    const lanes = splitLanes(order, (q) => paths.get(q.head) ?? null, this.opts.lanes.scopes);
    const land = oneAtATime();
    const limit = atMost(this.opts.maxChecks ?? Number.POSITIVE_INFINITY);
    const runs = lanes.map((_, i): LaneRun => ({ ...run, size: { n: this.window }, land, limit, laneNo: i + 1 }));
    const ended = await Promise.allSettled(lanes.map((lane, i) => this.lane(lane, runs[i] as LaneRun)));
    this.window = Math.min(this.opts.window ?? 1, ...runs.map((r) => r.size.n));
    for (const e of ended) if (e.status === 'rejected') throw e.reason;
  }

  /** The paths each task's head changes; with `--push`, against the remote's target, its commits fetched first. */
  private async lanePaths(repo: string, order: QueuedIntegration[]): Promise<Map<string, string[]>> {
    const remote = this.opts.push;
    if (remote === undefined)
      return changedPaths(
        repo,
        `refs/heads/${this.targetNow}`,
        order.map((q) => q.head),
      );
    await fetchBranch(repo, remote, this.targetNow);
    for (const q of order) await fetchTaskHead(repo, remote, q.branch, q.head);
    return changedPaths(
      repo,
      trackingRef(remote, this.targetNow),
      order.map((q) => q.head),
    );
  }

  /** One lane's tasks (all of them without `--lanes`), window after window, in order. */
  private async lane(left: QueuedIntegration[], run: LaneRun): Promise<void> {
    const n = this.opts.window ?? 1;
    while (left.length > 0) {
      run.stopIfFailed();
      // A task with dependents ends the window: they are merged after it, at the next turn.
      const size = Math.min(run.size.n, left.length);
      const cut = left.slice(0, size).findIndex((q) => run.queue.some((d) => d.blocked_by.includes(q.task_id)));
      const batch = left.slice(0, cut === -1 ? size : cut + 1);
      const byTask = new Map(batch.map((q) => [q.task_id, q]));
      const limit = run.limit ?? (<T>(fn: () => Promise<T>) => fn());
      const result = await this.renewing(() =>
        integrateWindow({
          repo: run.repo,
          target: this.targetNow,
          tasks: batch.map((q) => ({
            id: q.task_id,
            head: q.head,
            branch: q.branch,
            message: mergeMessage(q.task_id, q.title),
          })),
          jobs: this.opts.jobs ?? n,
          check: (commit, t) => limit(() => this.check(run.repo, commit, t.id)),
          onChecking: (tasks) =>
            run.announce(
              tasks.map((t) => t.id),
              run.size.n,
              run.laneNo,
            ),
          beforeSwap: () => {
            run.stopIfFailed();
            return this.renew();
          },
          swapper: run.swapper,
          lane: run.land ? { land: run.land } : undefined,
          remote: this.opts.push === undefined ? undefined : remoteTarget(run.repo, this.opts.push, this.targetNow),
        }),
      );
      let stop = false;
      for (const d of result.decided) {
        const q = byTask.get(d.task.id);
        if (q && run.report(q, d.outcome)) stop = true;
      }
      run.size.n = result.red ? Math.max(1, Math.floor(run.size.n / 2)) : Math.min(n, run.size.n + 1);
      const done = new Set(result.decided.map((d) => d.task.id));
      if (stop || done.size === 0) return;
      left = left.filter((q) => !done.has(q.task_id));
    }
  }

  /** How many checks passed only on a retry (SPEC §15 "Flaky checks"), counted for this check command. */
  flakyChecks = 0;

  /** `--check` on a merged commit, run again up to `--check-retries` times while it fails. */
  private async check(repo: string, commit: string, label: string): Promise<CheckVerdict> {
    const check = this.opts.check;
    if (!check) return { ok: true };
    const cmd = { repo, stateDir: this.opts.stateDir, command: check.command, timeoutMs: check.timeoutMs, label };
    for (let attempt = 0; ; attempt++) {
      const verdict = await runCheck(cmd, commit);
      if (verdict.ok && attempt > 0) {
        this.flakyChecks++;
        return { ok: true, flaky: true };
      }
      if (verdict.ok || attempt >= (this.opts.checkRetries ?? 0)) return verdict;
    }
  }

  /** Runs `work` while renewing the slot (a check can outlast a third of the lease). */
  private async renewing<T>(work: () => Promise<T>): Promise<T> {
    const renewing = setInterval(() => void this.renew().catch(() => undefined), Math.max(1000, this.leaseMs / 3));
    try {
      return await work();
    } finally {
      clearInterval(renewing);
    }
  }

  private repoOf(q: QueuedIntegration): string {
    return this.opts.repo ?? q.worktree ?? '.';
  }

  /** Merges one task (recording is the caller's); `stopIfFailed` throws before a swap once a record failed. */
  private merge(
    q: QueuedIntegration,
    head: string,
    swapper: RefSwapper,
    stopIfFailed: () => void,
  ): Promise<MergeOutcome> {
    const repo = this.repoOf(q);
    const check = this.opts.check;
    return integrateHead({
      repo,
      target: this.targetNow,
      branch: q.branch,
      head,
      message: mergeMessage(q.task_id, q.title),
      dryRun: (this.opts.review ?? false) && !q.approved,
      remote: this.opts.push === undefined ? undefined : remoteTarget(repo, this.opts.push, this.targetNow),
      check:
        check &&
        (async (commit) => {
          const renewing = setInterval(
            () => void this.renew().catch(() => undefined),
            Math.max(1000, this.leaseMs / 3),
          );
          try {
            return await this.check(repo, commit, q.task_id);
          } finally {
            clearInterval(renewing);
          }
        }),
      beforeSwap: () => {
        stopIfFailed();
        return this.renew();
      },
      swapper,
    });
  }

  private async record(q: QueuedIntegration, head: string, o: MergeOutcome): Promise<string | null> {
    const t = this.targetNow;
    const base = { board: this.opts.board, slot_id: this.slotId, task_id: q.task_id, head, target: t };
    const where = q.worktree ? ` in ${q.worktree}` : '';
    const onBranch = q.branch ? ` on branch ${q.branch}` : '';
    let input: RecordInput;
    switch (o.state) {
      case 'merged':
        input = { ...base, state: 'merged', commit: o.commit, how: o.how, ...(o.flaky ? { flaky: true } : {}) };
        break;
      case 'ready':
        input = {
          ...base,
          state: 'awaiting_review',
          commit: o.commit,
          reason: `ready to merge as ${short(o.commit)}; approve with coord approve ${q.task_id}`,
        };
        break;
      case 'blocked':
        input = { ...base, state: 'blocked', reason: o.reason, note: o.reason };
        break;
      case 'conflict': {
        const paths = o.paths.join(', ');
        input = {
          ...base,
          state: 'conflict',
          reason: paths,
          note: `conflicts with ${t} in ${paths} (target at ${short(o.old)}, head ${short(head)}); a follow-up task went to ${q.agent}`,
          followup: {
            for: q.agent,
            title: `resolve the conflicts of #${q.task_id} with ${t}: ${paths}`.slice(0, 500),
            body: [
              `#${q.task_id} "${q.title}" conflicts with ${t} in: ${paths}.`,
              `In your work tree${where}${onBranch}: merge ${t} (git merge ${t}), resolve those paths, commit.`,
              `Then submit this task: coord merges #${q.task_id} again with the head your submit records (never unsubmitted commits).`,
            ].join('\n'),
          },
        };
        break;
      }
      case 'check_failed':
        input = {
          ...base,
          state: 'check_failed',
          commit: o.commit,
          reason: o.reason,
          note: `${o.reason} on the merge with ${t} (${short(o.commit)}):\n${o.output}`.slice(0, 16_000),
          followup: {
            for: q.agent,
            title: `fix the check of #${q.task_id} on ${t}: ${o.reason}`.slice(0, 500),
            body: [
              `The check failed on #${q.task_id} "${q.title}" merged with ${t}: ${o.reason}.`,
              `Fix it in your work tree${where}${onBranch}, commit and submit this task; coord tries again with the head your submit records.`,
              'The last lines of its output:',
              o.output,
            ]
              .join('\n')
              .slice(0, 16_000),
          },
        };
        break;
    }
    return (await this.board.record(input)).followup_id;
  }
}
