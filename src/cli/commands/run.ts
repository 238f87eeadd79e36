/**
 * `coord run --agents claude:2,codex:1 [--once] [--integrate]` (SPEC §18): the supervisor in the foreground —
 * the real agent CLIs started headless, one per ready task, each in its own work tree, kept going until the
 * plan has landed; with --integrate the integrator (SPEC §15) runs beside it. `coord run --stop` asks a
 * running `coord run` of this state directory and board to stop.
 */
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ensureDaemon } from '../../client/daemon-launcher.js';
import { CoordError } from '../../core/errors.js';
import type { ClaimGrant, Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { parseAgentsSpec } from '../../core/supervision.js';
import { defaultTarget, repositoryOf } from '../../git/integrate-target.js';
import { Integrator, SlotLost } from '../../git/integrator.js';
import { runGit } from '../../git/run-git.js';
import type { SupervisorBoard } from '../../supervisor/board.js';
import { headlessProfiles } from '../../supervisor/profiles.js';
import { defaultWorktrees, realDir, Supervisor } from '../../supervisor/supervisor.js';
import { action, type CommonFlags, type Invocation, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { boardOverHttp, resultLine } from './integrate.js';

interface RunFlags extends CommonFlags {
  agents?: string;
  once?: boolean;
  stop?: boolean;
  worktrees?: string;
  setup?: string;
  retries?: string;
  backoff?: string;
  taskTimeout?: string;
  maxTurns?: string;
  budgetTokens?: string;
  budgetUsd?: string;
  pauseAfter?: string;
  grace?: string;
  permissionMode?: string;
  keepWorktrees?: boolean;
  integrate?: boolean;
  check?: string;
  target?: string;
  repo?: string;
}

const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));
const HOOK_BIN = fileURLToPath(new URL('../../../bin/coord-hook.cjs', import.meta.url));
const LEASE_S = 120;

/** The board as `coord run` reaches it: the daemon's operations over HTTP. */
export function supervisorBoardOverHttp(inv: Invocation): SupervisorBoard {
  const c = inv.client;
  return {
    claimNext: async (input) => (await c.call(operations.claimNext, input)) as ClaimGrant | null,
    claimTask: async (input) => (await c.call(operations.claimTask, input)) as ClaimGrant,
    heartbeat: (input) => c.call(operations.heartbeat, input),
    release: (input) => c.call(operations.releaseTask, input),
    fail: (input) => c.call(operations.submitResult, { ...input, status: 'failed' }),
    showTask: async (id) => (await c.call(operations.showTask, { task_id: id })).task as Task,
    reservePort: (input) => c.call(operations.reservePort, input),
    renewLock: (input) => c.call(operations.renewLock, input),
    unlock: (lock_id) => c.call(operations.unlockFiles, { lock_id }),
    reportRun: (run) => c.call(operations.reportRun, run),
  };
}

const num = (flag: string, v: string | undefined, dflt: number, min = 0): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw usage(`${flag} takes a number ≥ ${min}, got "${v}"`);
  return n;
};
const usage = (message: string) => new CoordError('invalid_request', message);

/** `MODE` for every client, or `claude=acceptEdits,codex=danger-full-access` per client. */
export function permissionModes(spec: string): Record<string, string> {
  if (!spec.includes('=')) return { '*': spec };
  const out: Record<string, string> = {};
  for (const part of spec.split(',')) {
    const [client, mode] = part.split('=').map((x) => x.trim());
    if (!client || !mode) throw usage(`--permission-mode takes MODE or CLIENT=MODE,… (got "${part}")`);
    out[client] = mode;
  }
  return out;
}

/** Where a running `coord run` of this state directory and board leaves its pid, for `--stop`. */
const pidFile = (stateDir: string, board: string) =>
  join(stateDir, `run-${board.replace(/[^A-Za-z0-9._-]/g, '_')}.pid`);

export function registerRun(program: Command): void {
  withCommon(
    program
      .command('run')
      .description(
        'Start the agent CLIs headless, one per ready task in its own work tree, until the plan has landed (SPEC §18)',
      )
      .option('--agents <spec>', 'how many processes of each client may run at once, e.g. claude:2,codex:1')
      .option('--once', 'exit once no task is ready, running, paused or waiting for a retry')
      .option('--stop', 'ask the coord run of this board to stop its agents and exit')
      .option('--worktrees <dir>', 'where work trees go (default: <repo>.worktrees beside the repository)')
      .option(
        '--setup <cmd>',
        'run CMD in each new work tree before its agent starts (COORD_TASK, COORD_WORKTREE, COORD_PORT)',
      )
      .option('--retries <n>', 'tries after the first when an agent exits without submitting (default 1)')
      .option('--backoff <s>', 'seconds before the first retry; doubles each time (default 5)')
      .option('--task-timeout <s>', 'seconds an agent may work on one task (default 1800)')
      .option('--max-turns <n>', "the client's own turn limit, where it has one")
      .option('--budget-tokens <n>', 'launch nothing new once the agents used this many tokens')
      .option('--budget-usd <x>', 'launch nothing new once the agents cost this much')
      .option('--pause-after <s>', 'a usage limit resetting at least this far away pauses the task (default 60)')
      .option('--grace <s>', 'seconds a stopping agent gets before it is ended (default 10)')
      .option(
        '--permission-mode <mode>',
        "the client's permission mode, passed on (default: edit and commit without asking)",
      )
      .option('--keep-worktrees', 'keep work trees of merged tasks')
      .option('--integrate', 'run the integrator too: merged work out (SPEC §15)')
      .option('--check <cmd>', 'with --integrate: run CMD on each merge before it lands')
      .option('--target <branch>', "the branch work trees start from and merges go into (default: the board's target)")
      .option('--repo <dir>', 'the repository (default: the one around the current directory)'),
    { agent: false },
  ).action(
    action(async (flags: RunFlags) => {
      const inv = resolveInvocation(flags);
      if (flags.stop) return stopRunning(inv, flags);
      if (!flags.agents) throw usage('coord run needs --agents, e.g. --agents claude:2,codex:1');
      const agents = parseAgentsSpec(flags.agents);
      const profiles = headlessProfiles(
        agents.map((a) => a.client),
        process.env.PATH,
      );
      const { repo, common } = await repositoryFor(flags);
      await ensureDaemon({
        stateDir: inv.stateDir,
        env: process.env,
        log: (m) => process.stderr.write(`coord: ${m}\n`),
        command: [process.execPath, ...process.execArgv, process.argv[1] ?? BIN],
      });
      const target = await targetFor(inv, flags, repo);
      const holder = `coord run (pid ${process.pid} on ${hostname()})`;
      const log = (line: string) => {
        if (!flags.json) process.stderr.write(`coord run: ${line}\n`);
      };
      const integrator = flags.integrate
        ? new Integrator(boardOverHttp(inv), {
            board: inv.board,
            repo,
            target,
            stateDir: inv.stateDir,
            check: flags.check ? { command: flags.check, timeoutMs: 600_000 } : undefined,
            review: false,
            holder,
            leaseMs: 60_000,
            onResult: (q, r) => {
              // Its agent submitted: said first, so the log never shows a merge before its submit.
              supervisor.submitSeen(q.task_id);
              log(resultLine(q, target, r));
            },
          })
        : null;
      const supervisor = new Supervisor(supervisorBoardOverHttp(inv), {
        board: inv.board,
        repo,
        commonDir: common,
        target,
        agents,
        profiles,
        worktreesDir: flags.worktrees ? resolve(flags.worktrees) : defaultWorktrees(repo),
        setup: flags.setup,
        ...limitsOf(flags),
        leaseS: LEASE_S,
        coord: coordCommand(inv, flags),
        scratchDir: join(inv.stateDir, 'run'),
        env: process.env,
        holder,
        log,
        integrating: integrator ? () => integrationPending(inv) : undefined,
      });
      const pids = pidFile(inv.stateDir, inv.board);
      writeFileSync(pids, `${process.pid}\n`);
      const stop = () => supervisor.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      let integrating = true;
      const integration = integrator ? integrateLoop(integrator, () => integrating) : Promise.resolve();
      try {
        if (integrator) await integrator.start();
        const out = await supervisor.run();
        integrating = false;
        await integration;
        if (out.spent) log(`budget spent: ${out.spent}; nothing new was launched`);
        emit(
          flags,
          { runs: out.runs, spent: out.spent, launched: supervisor.launched },
          () =>
            out.runs
              .map((r) => `#${r.task_id} ${r.agent}: ${r.submitted ? 'submitted' : `exited ${r.exit_code ?? '-'}`}`)
              .join('\n') || 'nothing to run',
        );
      } finally {
        integrating = false;
        await integrator?.releaseSlot().catch(() => undefined);
        if (existsSync(pids) && readFileSync(pids, 'utf8').trim() === String(process.pid))
          rmSync(pids, { force: true });
      }
    }),
  );
}

/** The repository `coord run` works in: its main work tree (even from inside a linked one) and its common dir. */
async function repositoryFor(flags: RunFlags): Promise<{ repo: string; common: string }> {
  const top = await repositoryOf(flags.repo ?? process.cwd());
  if (top === null)
    throw usage(`${flags.repo ?? process.cwd()} is not in a git repository: run coord run inside it, or pass --repo`);
  const common = (await runGit(top, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim();
  // The main work tree (the common dir's folder), even when coord run is started inside a linked one.
  return { repo: common.endsWith('/.git') ? common.slice(0, -'/.git'.length) : top, common };
}

/** --target, else the board's target, else the repository's main or master. */
async function targetFor(inv: Invocation, flags: RunFlags, repo: string): Promise<string> {
  const boardTarget = flags.target
    ? null
    : await inv.client
        .call(operations.listWorktrees, { board: inv.board })
        .then((w) => w.target)
        .catch(() => null);
  const target = flags.target ?? boardTarget ?? (await defaultTarget(repo));
  if (target === null) throw usage(`${repo} has no target branch (no main or master): pass --target BRANCH`);
  return target;
}

/** The supervisor's limits, from the flags (each checked: a bad number is a usage error naming its flag). */
function limitsOf(flags: RunFlags) {
  const optional = (flag: string, v: string | undefined, dflt: number, min?: number) =>
    v === undefined ? undefined : num(flag, v, dflt, min);
  return {
    once: flags.once ?? false,
    retries: num('--retries', flags.retries, 1),
    backoffMs: num('--backoff', flags.backoff, 5) * 1000,
    taskTimeoutS: num('--task-timeout', flags.taskTimeout, 1800, 1),
    maxTurns: optional('--max-turns', flags.maxTurns, 0, 1),
    budget: {
      tokens: optional('--budget-tokens', flags.budgetTokens, 0),
      usd: optional('--budget-usd', flags.budgetUsd, 0),
    },
    pauseAfterS: num('--pause-after', flags.pauseAfter, 60),
    graceMs: num('--grace', flags.grace, 10) * 1000,
    permissionMode: flags.permissionMode === undefined ? undefined : permissionModes(flags.permissionMode),
    keepWorktrees: flags.keepWorktrees ?? false,
  };
}

/** How the agents reach this coord: its node, its bins, and the state directory pinned (--state, $COORD_STATE). */
function coordCommand(inv: Invocation, flags: RunFlags) {
  const pinned = flags.state ?? process.env.COORD_STATE;
  return {
    node: process.execPath,
    bin: realDir(BIN),
    hookBin: existsSync(HOOK_BIN) ? realpathSync(HOOK_BIN) : realDir(BIN),
    stateArgs: pinned ? ['--state', resolve(pinned)] : ['--state', inv.stateDir],
  };
}

/** The integrator's turns, beside the supervisor, until it is told to end (then one last turn). */
async function integrateLoop(integrator: Integrator, go: () => boolean): Promise<void> {
  for (;;) {
    const last = !go();
    let progressed = 0;
    try {
      progressed = (await integrator.turn()).progressed;
    } catch (e) {
      if (!(e instanceof SlotLost) && (e as { code?: string }).code !== 'stale_claim') throw e;
    }
    if (last) return;
    if (progressed === 0) await new Promise((r) => setTimeout(r, 500));
  }
}

/** With --integrate and --once: work still waiting to be merged may make a task ready. */
async function integrationPending(inv: Invocation): Promise<boolean> {
  const q = await inv.client.call(operations.integrationQueue, { board: inv.board });
  return q.queue.some((e) => e.state === 'pending');
}

async function stopRunning(inv: Invocation, flags: RunFlags): Promise<void> {
  const file = pidFile(inv.stateDir, inv.board);
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : Number.NaN;
  if (!Number.isInteger(pid) || pid <= 0)
    throw new CoordError('not_found', `no coord run is running for board ${inv.board}`);
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    rmSync(file, { force: true });
    throw new CoordError('not_found', `no coord run is running for board ${inv.board} (pid ${pid} is gone)`);
  }
  emit(flags, { stopped: pid }, () => `asked coord run (pid ${pid}) to stop its agents`);
}
