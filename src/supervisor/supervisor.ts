/**
 * `coord run` (SPEC §18): one process per ready task, each claimed for a fresh agent name before anything
 * starts, each in the task's own work tree, kept going until the plan has landed. The rules (what a try
 * ends in, when a limit pauses, what a budget allows) are core's (core/supervision.ts); what differs per
 * client is its profile's `headless` part; this file starts, watches and ends the processes.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientEvent, HeadlessProfile, StreamSignal } from '../clients/profile.js';
import { isCoordError } from '../core/errors.js';
import type { ClaimGrant, Task } from '../core/model.js';
import {
  type AgentRun,
  type AgentSlots,
  type AgentState,
  afterExit,
  type Budget,
  branchOf,
  budgetSpent,
  launchName,
  limitDecision,
  sumUsage,
  taskPrompt,
  type Usage,
} from '../core/supervision.js';
import { AgentProcess, whichBin } from './agent-process.js';
import type { SupervisorBoard } from './board.js';
import { copyIncluded, removableTree, removeTree, runSetup, taskTree } from './worktree.js';

/** How the agents' `coord mcp` and hooks are started: this coord, its state directory. */
export interface CoordLaunch {
  node: string;
  bin: string;
  hookBin: string;
  stateArgs: string[];
}

export interface SupervisorOptions {
  board: string;
  /** The main work tree of the repository. */
  repo: string;
  /** The repository's git directory (`<repo>/.git`). */
  commonDir: string;
  target: string;
  agents: AgentSlots[];
  profiles: Record<string, HeadlessProfile>;
  once: boolean;
  /** Where work trees go: default `<repo>.worktrees`. */
  worktreesDir?: string | undefined;
  setup?: string | undefined;
  setupTimeoutS?: number;
  retries: number;
  backoffMs: number;
  taskTimeoutS: number;
  maxTurns?: number | undefined;
  budget: Budget;
  pauseAfterS: number;
  graceMs: number;
  /** `--permission-mode`: one mode for every client, or per client (`claude=acceptEdits,codex=danger-full-access`). */
  permissionMode?: Record<string, string> | undefined;
  keepWorktrees: boolean;
  leaseS: number;
  coord: CoordLaunch;
  /** Where each launch's own files go (settings a client is pointed at): `<state>/run`. */
  scratchDir: string;
  /** The environment agents start from (the supervisor's own). */
  env: NodeJS.ProcessEnv;
  holder: string;
  log(line: string): void;
  /** With --integrate: whether the integrator may still make a task ready (keeps --once going). */
  integrating?: (() => Promise<boolean>) | undefined;
}

interface Live {
  run: AgentRun;
  claimId: string;
  proc: AgentProcess | null;
  portLock: string | null;
  port: number | null;
  session: string | null;
  usage: Usage | null;
  turns: number;
  resultText: string | null;
  /** Set when the supervisor ended it: stop (release), pause (hold), timeout (a failed try). */
  endedBy: 'stop' | 'pause' | 'timeout' | null;
  pausedUntil: number | null;
  /** The heartbeat that told the claim its work tree. */
  told: Promise<unknown>;
}

interface Retry {
  task_id: string;
  client: string;
  agent: string;
  attempt: number;
  at: number;
  left: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Supervisor {
  private readonly live = new Map<string, Live>();
  private readonly retries: Retry[] = [];
  private readonly finished: AgentRun[] = [];
  /** Work trees of submitted tasks: removed once merged unless --keep-worktrees. */
  private readonly toRemove = new Map<string, string>();
  private stopping = false;
  private spentWhy: string | null = null;
  private wake: () => void = () => {};
  /** Reports go one after another, so the daemon never sees an older state after a newer one. */
  private reporting: Promise<unknown> = Promise.resolve();
  /** Every agent process started, by client: what the acceptance test reads beside the process table. */
  readonly launched: { agent: string; client: string; task_id: string; pid: number | null }[] = [];

  constructor(
    private readonly board: SupervisorBoard,
    private readonly o: SupervisorOptions,
  ) {}

  /** SPEC §18 "Stopping": every running agent asked to stop, ended after the grace period, its task released. */
  stop(): void {
    this.stopping = true;
    this.wake();
  }

  /** Runs until stopped (or, with --once, until nothing is ready, running, paused or waiting for a retry). */
  async run(): Promise<{ runs: AgentRun[]; spent: string | null }> {
    for (;;) {
      if (this.stopping) break;
      await this.launchWhatFits();
      await this.removeMerged();
      if (this.o.once && this.live.size === 0 && this.retries.length === 0) {
        const more = await this.readyLeft();
        if (!more) break;
      }
      // Nothing to launch now: wait for a task to become ready (the daemon's long poll answers the moment one
      // does) where a slot is free, else for an agent to end.
      if (await this.claimWaiting()) continue;
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1000);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
    await Promise.all([...this.live.values()].map((l) => this.end(l, 'stop')));
    // Wait for each agent's ending to be recorded (released, noted).
    while (this.live.size > 0) await sleep(50);
    await this.removeMerged();
    await this.reporting;
    return { runs: this.finished, spent: this.spentWhy };
  }

  /** Waits up to a second in claim-next for a client with a free slot; true when it started an agent. */
  private async claimWaiting(): Promise<boolean> {
    if (this.stopping || this.spentWhy !== null) return false;
    const free = this.o.agents.find(
      (a) => this.running(a.client) < a.slots && !this.retries.some((r) => r.client === a.client),
    );
    if (!free) return false;
    const agent = launchName(free.client);
    const grant = await this.board
      .claimNext({ agent, board: this.o.board, lease_s: this.o.leaseS, wait_s: 1 })
      .catch(() => null);
    if (!grant) return false;
    if (this.stopping) {
      await this.board.release({ task_id: grant.task.id, claim_id: grant.claim_id }).catch(() => 0);
      return false;
    }
    this.start(free.client, agent, grant, 1, null);
    return true;
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
    const now = new Date().toISOString();
    const task = grant.task;
    const path = join(this.worktreesDir(), task.id);
    const l: Live = {
      run: {
        agent,
        board: this.o.board,
        client,
        pid: null,
        task_id: task.id,
        worktree: path,
        branch: branchOf(task),
        state: 'starting',
        since: now,
        started_at: now,
        usage: null,
        paused_until: null,
        attempt,
        supervisor: this.o.holder,
        exit_code: null,
        submitted: false,
      },
      claimId: grant.claim_id,
      proc: null,
      portLock: null,
      port: null,
      session: null,
      usage: null,
      turns: 0,
      resultText: null,
      endedBy: null,
      pausedUntil: null,
      told: Promise.resolve(),
    };
    this.live.set(agent, l);
    void this.supervise(l, grant, left).catch((e) => {
      this.o.log(`#${task.id} ${agent}: ${(e as Error).message}`);
      this.live.delete(agent);
      this.wake();
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
    const keepLease = setInterval(
      () => {
        void this.board
          .heartbeat({ task_id: run.task_id, claim_id: l.claimId, lease_s: this.o.leaseS })
          .catch((e) => this.o.log(`#${run.task_id} lease: ${(e as Error).message}`));
        if (l.portLock) void this.board.renewLock({ lock_id: l.portLock, lease_s: this.o.leaseS }).catch(() => 0);
      },
      Math.max(1000, (this.o.leaseS * 1000) / 3),
    );
    try {
      const prep = await this.prepare(l, grant.task);
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

  /** The work tree, its files, its port and its setup; the task and what it builds on, for the prompt. */
  private async prepare(
    l: Live,
    claimed: Task,
  ): Promise<{ ok: true; task: Task; blockers: Task[] } | { ok: false; lines: string[] }> {
    const { run } = l;
    try {
      // The work tree, the port and the task's text at once: none waits for another.
      const portTaken = this.board
        .reservePort({ agent: run.agent, board: this.o.board, lease_s: this.o.leaseS })
        .then((port) => {
          l.port = port.port;
          l.portLock = port.lock_id;
        });
      const [tree, , task] = await Promise.all([
        taskTree(this.o.repo, this.o.target, run.branch, run.worktree),
        portTaken,
        this.board.showTask(run.task_id),
      ]);
      run.branch = tree.branch;
      // SPEC §18: the claim learns its work tree now (it was made before the tree was); awaited before the
      // try ends (the lost-work note reads it), not before the agent starts.
      l.told = this.board
        .heartbeat({ task_id: run.task_id, claim_id: l.claimId, lease_s: this.o.leaseS, worktree: run.worktree })
        .catch((e) => this.o.log(`#${run.task_id} telling the claim its work tree: ${(e as Error).message}`));
      const copied = await copyIncluded(this.o.repo, run.worktree);
      if (copied.length > 0) this.o.log(`#${run.task_id}: copied ${copied.length} file(s) named in .worktreeinclude`);
      if (this.o.setup) {
        const s = await runSetup(this.o.setup, run.worktree, this.agentEnv(l), (this.o.setupTimeoutS ?? 600) * 1000);
        if (!s.ok) return { ok: false, lines: s.lines };
      }
      const blockers = await Promise.all(task.blocked_by.map((id) => this.board.showTask(id).catch(() => null)));
      return { ok: true, task: { ...claimed, ...task }, blockers: blockers.filter((b): b is Task => b !== null) };
    } catch (e) {
      return { ok: false, lines: [(e as Error).message] };
    }
  }

  private agentEnv(l: Live): NodeJS.ProcessEnv {
    return { ...this.o.env, ...this.coordEnv(l) };
  }

  /** coord's variables of one agent (SPEC §18): who it is, its claim, its task, work tree and port. */
  private coordEnv(l: Live): Record<string, string> {
    return {
      COORD_AGENT: l.run.agent,
      COORD_BOARD: this.o.board,
      COORD_CLAIM: `${l.run.task_id}:${l.claimId}`,
      COORD_TASK: l.run.task_id,
      COORD_WORKTREE: l.run.worktree,
      ...(l.port === null ? {} : { COORD_PORT: String(l.port) }),
    };
  }

  private spawn(l: Live, profile: HeadlessProfile, prompt: string, resume: string | undefined): AgentProcess {
    const c = this.o.coord;
    const bin = whichBin(profile.bin, this.o.env.PATH);
    if (bin === null) throw new Error(`${profile.bin} is not installed (on PATH): ${profile.install}`);
    const hookArgv = (event: ClientEvent) => [
      c.node,
      c.hookBin,
      ...markOf(event, l.run.client).split(' '),
      ...c.stateArgs,
    ];
    // A folder of this launch's own for the client's configuration files (removed once the process has ended).
    const configDir = mkdtempSync(join(tmpdir(), 'coord-run-'));
    const scratch = join(this.o.scratchDir, l.run.agent.replace(/[^A-Za-z0-9._-]/g, '_'));
    const launch = profile.launch({
      prompt,
      coordEnv: this.coordEnv(l),
      scratch,
      cwd: l.run.worktree,
      mcp: { command: c.node, args: [c.bin, 'mcp', '--client', l.run.client, ...c.stateArgs] },
      hook: (event) => hookArgv(event).map(shellQuote).join(' '),
      mark: (event) => markOf(event, l.run.client),
      permissionMode: this.o.permissionMode?.[l.run.client] ?? this.o.permissionMode?.['*'],
      maxTurns: this.o.maxTurns,
      resume,
      gitCommonDir: this.o.commonDir,
      configDir,
      hookArgv,
      pluginModule: (name) => pluginModuleOf(c.bin, name),
    });
    for (const f of launch.files ?? []) {
      // A profile writes its own folders only: never a file of the user's or the work tree's.
      const at = resolve(f.path);
      if (!at.startsWith(`${configDir}/`) && !at.startsWith(`${scratch}/`))
        throw new Error(`${l.run.client}: ${f.path} is outside ${configDir} and ${scratch}`);
      mkdirSync(dirname(f.path), { recursive: true, mode: 0o700 });
      writeFileSync(f.path, f.content, { mode: 0o600 });
    }
    const proc = new AgentProcess(bin, launch.args, {
      cwd: l.run.worktree,
      env: { ...this.agentEnv(l), ...launch.env },
      onLine: (stream, line) => {
        const signals = stream === 'stdout' ? profile.read(line) : (profile.readErr?.(line) ?? []);
        for (const s of signals) this.signal(l, s);
      },
    });
    void proc.ended.then(() => rmSync(configDir, { recursive: true, force: true }));
    l.proc = proc;
    l.run.pid = proc.pid;
    this.launched.push({ agent: l.run.agent, client: l.run.client, task_id: l.run.task_id, pid: proc.pid });
    this.o.log(`#${l.run.task_id} ${l.run.agent} started (pid ${proc.pid ?? '?'}) in ${l.run.worktree}`);
    this.report(l);
    return proc;
  }

  /** What the client's event stream says, applied (SPEC §18 "Supervised", "Usage limits", "Budgets"). */
  private signal(l: Live, s: StreamSignal): void {
    switch (s.kind) {
      case 'session':
        l.session = s.id;
        return;
      case 'state':
        this.setState(l, s.state);
        return;
      case 'turn':
        l.turns += 1;
        if (l.run.state === 'starting') this.setState(l, 'working');
        return;
      case 'retry': {
        if (s.status === 429 && s.delayMs !== null) {
          const d = limitDecision(s.delayMs, this.o.pauseAfterS, Date.now());
          if (d.pause && l.endedBy === null) {
            l.endedBy = 'pause';
            l.pausedUntil = d.until;
            l.run.paused_until = new Date(d.until).toISOString();
            this.setState(l, 'paused');
            this.o.log(`#${l.run.task_id} ${l.run.agent}: usage limit, paused until ${l.run.paused_until}`);
            void l.proc?.stop(this.o.graceMs);
            return;
          }
        }
        this.setState(l, 'waiting');
        return;
      }
      case 'result': {
        const wall = l.proc ? (Date.now() - l.proc.startedAt) / 1000 : 0;
        const before = l.usage;
        l.usage = {
          input_tokens: (before?.input_tokens ?? 0) + (s.input_tokens ?? 0),
          output_tokens: (before?.output_tokens ?? 0) + (s.output_tokens ?? 0),
          ...(s.cost_usd === null && before?.cost_usd === undefined
            ? {}
            : { cost_usd: (before?.cost_usd ?? 0) + (s.cost_usd ?? 0) }),
          wall_s: Math.round(((before?.wall_s ?? 0) + wall) * 10) / 10,
        };
        l.run.usage = l.usage;
        l.resultText = s.text;
        this.setState(l, 'idle');
        return;
      }
    }
  }

  private setState(l: Live, state: AgentState): void {
    if (l.run.state === state) return;
    l.run.state = state;
    l.run.since = new Date().toISOString();
    this.report(l);
  }

  private report(l: Live): void {
    const snapshot = { ...l.run };
    this.reporting = this.reporting.then(() => this.board.reportRun(snapshot)).catch(() => 0);
  }

  /** SPEC §18 "Endings". */
  private async ended(
    l: Live,
    e: { submitted: boolean; code: number | null; lines: string[]; why: string | null; releasedByAgent?: boolean },
  ): Promise<void> {
    const { run } = l;
    run.submitted = e.submitted;
    run.state = 'exited';
    run.since = new Date().toISOString();
    run.exit_code = e.code;
    this.report(l);
    try {
      await l.told;
      if (l.portLock) await this.board.unlock(l.portLock).catch(() => 0);
      if (e.submitted) {
        this.o.log(`#${run.task_id} ${run.agent} submitted (exit ${e.code ?? '-'})`);
        if (!this.o.keepWorktrees) this.toRemove.set(run.task_id, run.worktree);
        return;
      }
      const how = e.why ?? `exited with ${e.code ?? 'a signal'} without submitting`;
      const tail = (l.resultText ? [l.resultText, ...e.lines] : e.lines).slice(-10).join('\n');
      if (this.stopping || l.endedBy === 'stop') {
        if (!e.releasedByAgent) {
          await this.board
            .release({ task_id: run.task_id, claim_id: l.claimId, note: `coord run stopped ${run.agent} (${how})` })
            .catch(() => 0);
        }
        this.o.log(`#${run.task_id} ${run.agent} stopped; task released`);
        return;
      }
      const next = afterExit({
        submitted: false,
        tries: run.attempt,
        retries: this.o.retries,
        ranMs: l.proc ? Date.now() - l.proc.startedAt : 0,
        baseBackoffMs: this.o.backoffMs,
      });
      if (next.kind === 'retry') {
        const agent = launchName(run.client);
        const note = `${run.agent} ${how}; coord run tries again with ${agent}${tail ? `. Its last lines:\n${tail}` : ''}`;
        if (!e.releasedByAgent) {
          await this.board.release({ task_id: run.task_id, claim_id: l.claimId, to: agent, note: clipNote(note) });
        }
        this.retries.push({
          task_id: run.task_id,
          client: run.client,
          agent,
          attempt: run.attempt + 1,
          at: Date.now() + next.delayMs,
          left: `${run.agent} ${how}`,
        });
        this.o.log(
          `#${run.task_id} ${run.agent} ${how}: retry ${run.attempt}/${this.o.retries} in ${Math.round(next.delayMs / 1000)} s`,
        );
        return;
      }
      const note = `coord run: ${run.agent} ${how}, after ${run.attempt} ${run.attempt === 1 ? 'try' : 'tries'}; the task failed.${tail ? ` Its last lines:\n${tail}` : ''}`;
      if (e.releasedByAgent) {
        // The agent gave the task back itself: claim it once more only to fail it.
        const g = await this.board
          .claimTask({ task_id: run.task_id, agent: run.agent, lease_s: this.o.leaseS })
          .catch(() => null);
        if (g) await this.board.fail({ task_id: run.task_id, claim_id: g.claim_id, note: clipNote(note) });
      } else {
        await this.board.fail({ task_id: run.task_id, claim_id: l.claimId, note: clipNote(note) });
      }
      this.o.log(
        `#${run.task_id} ${run.agent} ${how}: failed after ${run.attempt} ${run.attempt === 1 ? 'try' : 'tries'}`,
      );
    } catch (err) {
      this.o.log(`#${run.task_id} ${run.agent}: ending: ${(err as Error).message}`);
    } finally {
      this.finished.push({ ...run });
      this.live.delete(run.agent);
      this.wake();
    }
  }

  /** Ask one agent to stop (SIGTERM to its group), end it after the grace period. */
  private async end(l: Live, why: 'stop'): Promise<void> {
    l.endedBy = why;
    await l.proc?.stop(this.o.graceMs);
  }

  /** SPEC §18: a submitted task's work tree goes once its work is in the target (never one with unmerged work). */
  private async removeMerged(): Promise<void> {
    for (const [taskId, tree] of this.toRemove) {
      const task = await this.board.showTask(taskId).catch(() => null);
      if (task?.change?.merged_as === undefined) continue;
      if (await removableTree(tree, this.o.target)) {
        await removeTree(this.o.repo, tree).catch((e) => this.o.log(`removing ${tree}: ${(e as Error).message}`));
      }
      this.toRemove.delete(taskId);
    }
  }
}

/** The mark of coord's hook for an event (the same words `coord setup` writes: cli/setup/plans.ts hookMark). */
const markOf = (event: ClientEvent, client: string) =>
  event === 'session-start' ? `prime --client ${client}` : `hook ${event} --client ${client}`;

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** A plugin module coord ships, beside the coord it runs: the build's, or in a checkout without one the source. */
const pluginModuleOf = (bin: string, name: string): string => {
  const root = join(dirname(bin), '..');
  const built = join(root, 'dist', 'plugins', `${name}.js`);
  return pathToFileURL(existsSync(built) ? built : join(root, 'src', 'plugins', `${name}.ts`)).href;
};

/** A note is at most 8 KiB: the tail of a long one is what matters. */
const clipNote = (s: string): string => (Buffer.byteLength(s) > 8000 ? `…${s.slice(-7000)}` : s);

/** `<repo>.worktrees` beside a repository given by any path inside it. */
export const defaultWorktrees = (repo: string): string =>
  join(dirname(resolve(repo)), `${basename(resolve(repo))}.worktrees`);

export const realDir = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};
