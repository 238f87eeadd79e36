/**
 * One integrator turn's records, in order (SPEC §15). Each result is recorded while the next task's merge
 * runs in git. A target already moved and not yet recorded is what a crash between swap and record leaves
 * too: the next turn records it. A record that fails stops the turn before its next swap.
 */
import type { QueuedIntegration } from '../core/integration/integration.js';
import type { MergeOutcome } from './integrate-merge.js';
import type { TurnResult } from './integrator-port.js';

export interface TurnRecorderOptions {
  /** The turn's queue: a task with dependents merged ends the turn. */
  queue: QueuedIntegration[];
  /** Records one result; answers the follow-up task made for it. */
  record: (q: QueuedIntegration, outcome: MergeOutcome) => Promise<string | null>;
  /** Publishes integration.window (a display: a failure to publish stops nothing). */
  publishWindow: (tasks: string[], size: number, lane: number | undefined) => Promise<unknown>;
  onResult?: ((task: QueuedIntegration, result: TurnResult) => void) | undefined;
}

export class TurnRecorder {
  /** Results recorded that changed something. */
  progressed = 0;
  private recording: Promise<void> = Promise.resolve();
  private failed: { error: unknown } | null = null;

  constructor(private readonly o: TurnRecorderOptions) {}

  /** A record failed: the turn stops (checked before each swap and between tasks). */
  get hasFailed(): boolean {
    return this.failed !== null;
  }

  readonly stopIfFailed = (): void => {
    if (this.failed) throw this.failed.error;
  };

  /** Hands one result to the recorder; answers whether the turn stops after it (a blocker merged). */
  readonly report = (q: QueuedIntegration, outcome: MergeOutcome): boolean => {
    if (outcome.state === 'blocked' && q.state === 'blocked' && q.reason === outcome.reason) {
      // Nothing new to record, but the caller still hears it (`--once` exits 2 for it).
      this.o.onResult?.(q, { ...outcome, repeated: true });
      return false;
    }
    this.progressed++;
    this.recording = this.recording.then(() =>
      this.o.record(q, outcome).then(
        (followup_id) => this.o.onResult?.(q, { ...outcome, followup_id }),
        (error: unknown) => {
          this.failed ??= { error };
        },
      ),
    );
    // A blocker merged in this turn frees its dependents only at the next turn: the queue is read again.
    return outcome.state === 'merged' && this.o.queue.some((d) => d.blocked_by.includes(q.task_id));
  };

  /**
   * The views show which tasks are checked together (SPEC §19); the event goes out in order with the
   * records, so each task's result comes after it. Only a display: a failure to publish stops nothing.
   */
  readonly announce = (tasks: string[], size: number, lane: number | undefined): void => {
    this.recording = this.recording.then(() =>
      this.o.publishWindow(tasks, size, lane).then(
        () => undefined,
        () => undefined,
      ),
    );
  };

  /** Waits for every record handed in so far. */
  settled(): Promise<void> {
    return this.recording;
  }
}
