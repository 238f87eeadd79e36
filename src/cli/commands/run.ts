/**
 * `coord run --agents claude:2,codex:1 [--once] [--integrate]` (SPEC §18): the supervisor in the foreground —
 * the real agent CLIs started headless, one per ready task, each in its own work tree, kept going until the
 * plan has landed; with --integrate the integrator (SPEC §15) runs beside it (run-integrate.ts). `coord run
 * --stop` asks a running `coord run` of this state directory and board to stop. Its flags: run-options.ts.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ensureDaemon } from '../../client/daemon-launcher.js';
import { CoordError } from '../../core/errors.js';
import type { ClaimGrant, Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { parseAgentsSpec } from '../../core/runs/supervision.js';
import type { SupervisorBoard } from '../../supervisor/board.js';
import { headlessProfiles } from '../../supervisor/profiles.js';
import { defaultWorktrees, Supervisor } from '../../supervisor/supervisor.js';
import { Waker } from '../../supervisor/waker.js';
import { action, type Invocation, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { integrateLoop, integrationPending, integratorFor, wakeOnSubmits } from './run-integrate.js';
import {
  BIN,
  coordCommand,
  limitsOf,
  type RunFlags,
  repositoryFor,
  runCommand,
  targetFor,
  usage,
} from './run-options.js';

export { permissionModes } from './run-options.js';

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

/** Where a running `coord run` of this state directory and board leaves its pid, for `--stop`. */
const pidFile = (stateDir: string, board: string) =>
  join(stateDir, `run-${board.replace(/[^A-Za-z0-9._-]/g, '_')}.pid`);

export function registerRun(program: Command): void {
  withCommon(runCommand(program), { agent: false }).action(
    action(async (flags: RunFlags) => {
      const inv = resolveInvocation(flags);
      if (flags.stop) return stopRunning(inv, flags);
      await runAgents(inv, flags);
    }),
  );
}

/** The supervisor (and with --integrate the integrator) until the plan has landed; then what ran. */
async function runAgents(inv: Invocation, flags: RunFlags): Promise<void> {
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
  const submitted = (task_id: string) => supervisor.submitSeen(task_id);
  const integrator = integratorFor(inv, flags, { repo, target, holder, submitted, log });
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
  const waker = new Waker();
  const unfollow = integrator ? wakeOnSubmits(inv, waker) : () => {};
  const integration = integrator ? integrateLoop(integrator, () => integrating, waker) : Promise.resolve();
  const endIntegration = () => {
    integrating = false;
    unfollow();
    waker.wake();
  };
  try {
    if (integrator) await integrator.start();
    const out = await supervisor.run();
    endIntegration();
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
    endIntegration();
    await integrator?.releaseSlot().catch(() => undefined);
    if (existsSync(pids) && readFileSync(pids, 'utf8').trim() === String(process.pid)) rmSync(pids, { force: true });
  }
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
