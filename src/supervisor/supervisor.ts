/**
 * `coord run` (SPEC §18): one process per ready task, each claimed for a fresh agent name before anything
 * starts, each in the task's own work tree, kept going until the plan has landed. The rules (what a try
 * ends in, when a limit pauses, what a budget allows) are core's (core/runs/supervision.ts); what differs per
 * client is its profile's `headless` part; this file starts, watches and ends the processes.
 */
import { join } from 'node:path';
import type { HeadlessProfile } from '../clients/profile.js';
import { isCoordError } from '../core/errors.js';
import type { ClaimGrant } from '../core/model.js';
import type { AgentRun, AgentState } from '../core/runs/supervision.js';
import { budgetSpent, launchName, sumUsage, taskPrompt } from '../core/runs/supervision.js';
import type { AgentProcess } from './agent-process.js';
import type { SupervisorBoard } from './board.js';
import { type Ending, removeMerged, settle } from './endings.js';
import { launchAgent } from './launch.js';
import { keepLeaseOf, type Live, newLive, type Retry, type SupervisorOptions } from './options.js';
import { prepare } from './prepare.js';
import { RunReports } from './run-reports.js';
import { applySignal, type SignalTarget } from './signals.js';
import { Waker } from './waker.js';
import { warmTaskTrees } from './worktree.js';

export type { CoordLaunch, SupervisorOptions } from './options.js';
export { defaultWorktrees, realDir } from './options.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Supervisor {
  private readonly live = new Map<string, Live>();
  private readonly retries: Retry[] = [];
  private readonly finished: AgentRun[] = [];
  /** Work trees of submitted tasks: removed once merged unless --keep-worktrees. */
  private readonly toRemove = new Map<string, string>();
  private stopping = false;
  private spentWhy: string | null = null;
  private readonly waker = new Waker();
  /** Reports go one after another, so the daemon never sees an older state after a newer one. */
  private readonly reports: RunReports;
  /** Every agent process started, by client: what the acceptance test reads beside the process table. */
  readonly launched: { agent: string; client: string; task_id: string; pid: number | null }[] = [];
  private readonly signals: SignalTarget;

  constructor(
    private readonly board: SupervisorBoard,
    private readonly o: SupervisorOptions,
  ) {
    this.reports = new RunReports(board);
    this.signals = {
      pauseAfterS: o.pauseAfterS,
      graceMs: o.graceMs,
      setState: (l, state) => this.setState(l, state),
      log: (line) => o.log(line),
    };
  }

  /** SPEC §18 "Stopping": every running agent asked to stop, ended after the grace period, its task released. */
  stop(): void {
    this.stopping = true;
    this.waker.wake();
  }

  /** The integrator has a result for `taskId`: its agent submitted (said before "merged"); the loop looks again. */
  submitSeen(taskId: string): void {
    for (const l of this.live.values()) {
      if (l.run.task_id !== taskId || l.announced) continue;
      l.announced = true;
      this.o.log(`#${taskId} ${l.run.agent} submitted`);
    }
    this.waker.wake();
  }

  /** Runs until stopped (or, with --once, until nothing is ready, running, paused or waiting for a retry). */
  async run(): Promise<{ runs: AgentRun[]; spent: string | null }> {
    await warmTaskTrees(this.o.repo, this.o.target);
    for (;;) {
      if (this.stopping) break;
      // A wake from here on (an agent ending while the loop looks) makes the nap below return at once.
      this.waker.look();
      await this.launchWhatFits();
      await removeMerged(this.board, this.o, this.toRemove);
      if (this.o.once && this.live.size === 0 && this.retries.length === 0 && !(await this.readyLeft())) {
        // The integrator may have landed a task's last blocker after the claim above looked: one more look.
        await this.launchWhatFits();
        if (this.live.size === 0) break;
      }
      // Nothing to launch now: wait for a task to become ready (the daemon's long poll answers the moment one
      // does) where a slot is free — and look again at once when it answers, even empty (a task posted just
      // after it would otherwise wait for this loop's second) — else for an agent to end. --once waits for an
      // agent's end or a merge (submitSeen) only: a long poll there held the run's end by up to a second.
      if (!this.o.once && (await this.claimWaiting()) !== 'no slot') continue;
      await this.waker.nap(1000);
    }
    await Promise.all([...this.live.values()].map((l) => this.end(l, 'stop')));
    // Wait for each agent's ending to be recorded (released, noted).
    while (this.live.size > 0) await sleep(50);
    await removeMerged(this.board, this.o, this.toRemove);
    await this.reports.settled();
    return { runs: this.finished, spent: this.spentWhy };
  }

  /** Waits up to a second in claim-next for a client with a free slot (none: 'no slot', at once). */
  private async claimWaiting(): Promise<'started' | 'waited' | 'no slot'> {
    if (this.stopping || this.spentWhy !== null) return 'no slot';
    const free = this.o.agents.find(
      (a) => this.running(a.client) < a.slots && !this.retries.some((r) => r.client === a.client),
    );
    if (!free) return 'no slot';
    const agent = launchName(free.client);
    const asked = Date.now();
    const grant = await this.board
      .claimNext({ agent, board: this.o.board, lease_s: this.o.leaseS, wait_s: 1 })
      .catch(() => null);
    // A poll that did not wait (it failed: the daemon restarting) is not repeated in a busy loop.
    if (!grant) return Date.now() - asked < 500 ? 'no slot' : 'waited';
    if (this.stopping) {
      await this.board.release({ task_id: grant.task.id, claim_id: grant.claim_id }).catch(() => 0);
      return 'no slot';
    }
    this.start(free.client, agent, grant, 1, null);
    return 'started';
  }

  /** --once: is anything still to come? (A retry is counted by the caller; the integrator may land blockers.) */
  private async readyLeft(): Promise<boolean> {
    if (this.spentWhy !== null) return false;
    return (await this.o.integrating?.()) ?? false;
  }

  private running(client: string): number {
    let n = 0;
    for (const l of this.live.values()) if (l.run.client === client) n++;
    return n;
  }

  private async launchWhatFits(): Promise<void> {
    for (const { client, slots } of this.o.agents) {
      while (!this.stopping && this.running(client) < slots) {
        this.spentWhy = budgetSpent(sumUsage(this.allRuns().map((r) => r.usage)), this.o.budget);
        if (this.spentWhy !== null) return;
        const retry = this.retries.find((r) => r.client === client && r.at <= Date.now());
        const pendingForClient = this.retries.some((r) => r.client === client);
        const agent = retry?.agent ?? launchName(client);
        let grant: ClaimGrant | null;
        try {
          if (retry) {
            this.retries.splice(this.retries.indexOf(retry), 1);
            grant = await this.board.claimTask({ task_id: retry.task_id, agent, lease_s: this.o.leaseS });
          } else {
            // A try waiting for its backoff keeps its slot: what is ready waits for the next free one.
            if (pendingForClient && this.running(client) + 1 >= slots) break;
            grant = await this.board.claimNext({ agent, board: this.o.board, lease_s: this.o.leaseS });
          }
        } catch (e) {
          // Another supervisor (or agent) took the task meanwhile: the claim decides (SPEC §18).
          if (isCoordError(e) || (e as { code?: string }).code) {
            this.o.log(`${retry ? `#${retry.task_id}` : 'claim'}: ${(e as Error).message}`);
            continue;
          }
          throw e;
        }
        if (!grant) break;
        this.start(client, agent, grant, retry?.attempt ?? 1, retry?.left ?? null);
      }
    }
  }

  private allRuns(): AgentRun[] {
    return [...this.finished, ...[...this.live.values()].map((l) => l.run)];
  }

  private start(client: string, agent: string, grant: ClaimGrant, attempt: number, left: string | null): void {
    const task = grant.task;
    const l = newLive(this.o, { client, agent, grant, attempt, worktree: join(this.worktreesDir(), task.id) });
    this.live.set(agent, l);
    void this.supervise(l, grant, left).catch((e) => {
      this.o.log(`#${task.id} ${agent}: ${(e as Error).message}`);
      this.live.delete(agent);
      this.waker.wake();
    });
  }

  private worktreesDir(): string {
    return this.o.worktreesDir ?? `${this.o.repo}.worktrees`;
  }

  /** One try of a task, from its work tree to its ending. */
  private async supervise(l: Live, grant: ClaimGrant, left: string | null): Promise<void> {
    const { run } = l;
    const profile = this.o.profiles[run.client];
    if (!profile) throw new Error(`no headless profile for ${run.client}`);
    const keepLease = keepLeaseOf(this.board, this.o, l);
    try {
      const prep = await prepare(this.board, this.o, l, grant.task);
      if (!prep.ok) {
        await this.ended(l, { submitted: false, code: null, lines: prep.lines, why: 'setup failed' });
        return;
      }
      const prompt = taskPrompt({
        grant: { ...grant, task: prep.task },
        branch: run.branch,
        worktree: run.worktree,
        port: l.port,
        blockers: prep.blockers,
        retryOf: left,
      });
      let resume: string | undefined;
      for (;;) {
        const proc = this.spawn(l, profile, prompt, resume);
        if (resume === undefined) prep.tell();
        const timeout = setTimeout(() => {
          l.endedBy ??= 'timeout';
          void proc.stop(this.o.graceMs);
        }, this.o.taskTimeoutS * 1000);
        const ended = await proc.ended;
        clearTimeout(timeout);
        if (l.endedBy === 'pause' && !this.stopping) {
          // SPEC §18: a usage limit pauses, holding the lease; the session resumes after the reset.
          await this.waitUntil(l.pausedUntil ?? Date.now());
          if (this.stopping) break;
          l.endedBy = null;
          l.pausedUntil = null;
          run.paused_until = null;
          resume = l.session ?? undefined;
          this.setState(l, 'starting');
          continue;
        }
        const task = await this.board.showTask(run.task_id).catch(() => null);
        const submitted = task !== null && (task.state === 'completed' || task.state === 'failed');
        run.exit_code = ended.code;
        await this.ended(l, {
          submitted,
          code: ended.code,
          lines: proc.lastLines(),
          why: l.endedBy === 'timeout' ? `--task-timeout ${this.o.taskTimeoutS} s reached` : null,
          releasedByAgent: task?.state === 'queued',
        });
        return;
      }
      await this.ended(l, { submitted: false, code: null, lines: [], why: 'stopped' });
    } finally {
      clearInterval(keepLease);
    }
  }

  private async waitUntil(at: number): Promise<void> {
    while (!this.stopping && Date.now() < at) await sleep(Math.min(1000, at - Date.now()));
  }

  private spawn(l: Live, profile: HeadlessProfile, prompt: string, resume: string | undefined): AgentProcess {
    const proc = launchAgent(this.o, { l, profile, prompt, resume, onSignal: (s) => applySignal(this.signals, l, s) });
    l.proc = proc;
    l.run.pid = proc.pid;
    this.launched.push({ agent: l.run.agent, client: l.run.client, task_id: l.run.task_id, pid: proc.pid });
    this.o.log(`#${l.run.task_id} ${l.run.agent} started (pid ${proc.pid ?? '?'}) in ${l.run.worktree}`);
    this.reports.report(l);
    return proc;
  }

  private setState(l: Live, state: AgentState): void {
    if (l.run.state === state) return;
    l.run.state = state;
    l.run.since = new Date().toISOString();
    this.reports.report(l);
  }

  /** SPEC §18 "Endings": recorded, then settled (endings.ts); the slot is free once it is. */
  private async ended(l: Live, e: Ending): Promise<void> {
    const { run } = l;
    run.submitted = e.submitted;
    run.state = 'exited';
    run.since = new Date().toISOString();
    run.exit_code = e.code;
    this.reports.report(l);
    try {
      const settled = await settle(this.board, this.o, l, e, this.stopping);
      if (settled.retry) this.retries.push(settled.retry);
      if (settled.removeOnceMerged) this.toRemove.set(run.task_id, settled.removeOnceMerged);
    } catch (err) {
      this.o.log(`#${run.task_id} ${run.agent}: ending: ${(err as Error).message}`);
    } finally {
      this.finished.push({ ...run });
      this.live.delete(run.agent);
      this.waker.wake();
    }
  }

  /** Ask one agent to stop (SIGTERM to its group), end it after the grace period. */
  private async end(l: Live, why: 'stop'): Promise<void> {
    l.endedBy = why;
    await l.proc?.stop(this.o.graceMs);
  }
}
