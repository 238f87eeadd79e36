/**
 * SPEC §18: what a supervisor tells the board of each agent process it runs (`report_run`), one report at a time
 * and in order. An `idle` state waits IDLE_REPORT_MS first: a headless client's last answer is followed by its
 * exit within ~0.1 s, and the exit's report says both (one synced write fewer a task).
 */
import type { SupervisorBoard } from './board.js';
import type { Live } from './options.js';

/** How long an agent stays idle before the board hears of it (an exit right after says it instead). */
const IDLE_REPORT_MS = 500;

export class RunReports {
  private sent: Promise<unknown> = Promise.resolve();
  /** An `idle` report held back per agent until the state lasts. */
  private readonly held = new Map<string, NodeJS.Timeout>();

  constructor(private readonly board: SupervisorBoard) {}

  /** Tells the board the run's state now (an `idle` one once it has lasted). */
  report(l: Live): void {
    clearTimeout(this.held.get(l.run.agent));
    this.held.delete(l.run.agent);
    if (l.run.state !== 'idle') {
      this.send(l);
      return;
    }
    const timer = setTimeout(() => {
      this.held.delete(l.run.agent);
      this.send(l);
    }, IDLE_REPORT_MS);
    timer.unref();
    this.held.set(l.run.agent, timer);
  }

  /** Every report handed in so far, sent. */
  settled(): Promise<unknown> {
    return this.sent;
  }

  private send(l: Live): void {
    const snapshot = { ...l.run };
    this.sent = this.sent.then(() => this.board.reportRun(snapshot)).catch(() => 0);
  }
}
