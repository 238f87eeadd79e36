/**
 * The integrator (SPEC §15): takes the board's slot, merges what the queue's order allows, and records
 * each result through the board — from the daemon (`serve --integrate`) or a CLI process
 * (`coord integrate`), which differ only in how they reach the board (`IntegratorBoard`).
 *
 * Exactly once rests on two fences. The slot keeps two integrators from working one board at once (it is
 * renewed while a check runs and just before each swap; one that lost it stops: integrator-slot.ts). And the
 * target moves only by compare-and-swap: a task merged by an integrator that died before recording it is
 * found already in the target at the next turn and recorded merged with no second commit.
 *
 * Beside it: its options and board (integrator-port.ts), the turn's ordered records (turn-recorder.ts) and
 * their text (integrate-record.ts), and the speculative window and lanes (integrator-windows.ts).
 */
import type { z } from 'zod';
import { integrationOrder, type QueuedIntegration, SLOT_LEASE_MS } from '../core/integration/integration.js';
import type { TakeSlotOutput } from '../core/integration/integration-schemas.js';
import { cleanLeftoverChecks, runCheck } from './integrate-check.js';
import { type CheckVerdict, integrateHead, type MergeOutcome } from './integrate-merge.js';
import { mergeMessage, recordInput } from './integrate-record.js';
import { remoteTarget } from './integrate-remote.js';
import type { IntegratorBoard, IntegratorOptions } from './integrator-port.js';
import { IntegrationSlot } from './integrator-slot.js';
import { runWindows, windowed } from './integrator-windows.js';
import { RefSwapper } from './ref-swapper.js';
import { repairTarget, type TargetState } from './target-repair.js';
import { TurnRecorder } from './turn-recorder.js';

export { mergeMessage } from './integrate-record.js';
export type { IntegratorBoard, IntegratorOptions, RecordInput, TurnResult } from './integrator-port.js';
export { SlotLost } from './integrator-slot.js';

export class Integrator {
  private readonly slot: IntegrationSlot;
  readonly slotId: string;
  /** The branch this turn merges into. */
  private targetNow: string;
  /** The speculative window's current size (SPEC §15): starts at `--window`, halves on a failure. */
  private readonly window: { n: number };
  /** How many checks passed only on a retry (SPEC §15 "Flaky checks"), counted for this check command. */
  flakyChecks = 0;

  constructor(
    private readonly board: IntegratorBoard,
    private readonly opts: IntegratorOptions,
  ) {
    this.slot = new IntegrationSlot(board, opts.board, opts.holder, opts.leaseMs ?? SLOT_LEASE_MS);
    this.slotId = this.slot.id;
    this.targetNow = opts.target;
    this.window = { n: Math.max(1, opts.window ?? 1) };
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
  takeSlot(): Promise<z.output<typeof TakeSlotOutput>> {
    return this.slot.take();
  }

  releaseSlot(): Promise<void> {
    return this.slot.release();
  }

  /**
   * One turn: take the slot, then try every task the order allows now. Answers how many results were
   * recorded that changed something (0: nothing to do, or the slot is another integrator's).
   */
  async turn(): Promise<{ busy: string | null; progressed: number }> {
    const slot = await this.slot.takeForTurn();
    if (!slot.ok) return { busy: slot.holder ?? 'another integrator', progressed: 0 };
    const queue = await this.board.queue(this.opts.board);
    if (this.opts.currentTarget) this.targetNow = await this.opts.currentTarget();
    const targets = await this.repairTargets(queue);
    // SPEC §15: a conflict or failed check is tried again only once a submit recorded another head for it.
    const moved = (q: QueuedIntegration) => q.tried_head !== q.head;
    // The turn's swaps share one `git update-ref --stdin` per repository.
    const swapper = new RefSwapper();
    const recorder = this.recorder(queue);
    const order = integrationOrder(queue, moved, this.opts.review ?? false);
    try {
      if (windowed(this.opts)) {
        const ctx = { opts: this.opts, target: this.targetNow, window: this.window, slot: this.slot };
        await runWindows({ ...ctx, check: (r, c, l) => this.check(r, c, l) }, order, queue, targets, swapper, recorder);
      } else {
        await this.oneAtATime(order, targets, swapper, recorder);
      }
    } finally {
      swapper.close();
      await recorder.settled();
    }
    recorder.stopIfFailed();
    return { busy: null, progressed: recorder.progressed };
  }

  /** Before anything else: a checked-out target an interrupted integrator left behind is brought up to date. */
  private async repairTargets(queue: QueuedIntegration[]): Promise<Map<string, TargetState>> {
    const targets = new Map<string, TargetState>();
    const repos = this.opts.repo !== null ? [this.opts.repo] : queue.map((q) => this.repoOf(q));
    for (const repo of new Set(repos)) {
      const state = await repairTarget(repo, this.targetNow);
      targets.set(repo, state);
      if (state.ok && state.repaired) this.opts.onRepair?.(state.repaired);
    }
    return targets;
  }

  /** The turn's records, in order, through the board. */
  private recorder(queue: QueuedIntegration[]): TurnRecorder {
    const at = () => ({ board: this.opts.board, slot_id: this.slotId, target: this.targetNow });
    return new TurnRecorder({
      queue,
      record: async (q, outcome) => (await this.board.record(recordInput(at(), q, q.head, outcome))).followup_id,
      publishWindow: (tasks, size, lane) => {
        const input = { ...at(), tasks, size };
        return this.board.window(lane === undefined ? input : { ...input, lane });
      },
      onResult: this.opts.onResult,
    });
  }

  /** Without a window: each task in order, merged and checked on its own. */
  private async oneAtATime(
    order: QueuedIntegration[],
    targets: Map<string, TargetState>,
    swapper: RefSwapper,
    recorder: TurnRecorder,
  ): Promise<void> {
    for (const q of order) {
      if (recorder.hasFailed) break;
      const target = targets.get(this.repoOf(q));
      // Only what a submit recorded: never the branch's tip (work in progress, a re-created branch).
      const outcome: MergeOutcome =
        target && !target.ok
          ? { state: 'blocked', reason: target.reason }
          : await this.merge(q, q.head, swapper, recorder.stopIfFailed);
      if (recorder.report(q, outcome)) break;
    }
  }

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
      check: check && ((commit) => this.slot.renewing(() => this.check(repo, commit, q.task_id))),
      beforeSwap: () => {
        stopIfFailed();
        return this.slot.renew();
      },
      swapper,
    });
  }
}
