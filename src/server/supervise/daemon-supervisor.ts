/**
 * `coord serve --run SPEC` (SPEC §18): the supervisor in the daemon, on the board of the repository the daemon
 * was started in (`--run-repo DIR`), with `coord run`'s defaults and without --once: it launches whenever a task
 * becomes ready and a slot is free, until the daemon stops (which stops its agents and releases their tasks).
 */
import { existsSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { hookSite } from '../../api/paths.js';
import { invoke } from '../../core/invoke.js';
import type { ClaimGrant, Task } from '../../core/model.js';
import type { Ctx } from '../../core/operation.js';
import { operations as op } from '../../core/operations.js';
import { parseAgentsSpec } from '../../core/runs/supervision.js';
import { defaultTarget, repositoryOf } from '../../git/integrate-target.js';
import { runGit } from '../../git/run-git.js';
import { boardForRepo } from '../../state-dir/board-name.js';
import { hookKeyOf } from '../../state-dir/token.js';
import type { SupervisorBoard } from '../../supervisor/board.js';
import { headlessProfiles } from '../../supervisor/profiles.js';
import { defaultWorktrees, Supervisor } from '../../supervisor/supervisor.js';
import { sdk } from '../mcp/http-wire.js';

const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));
const HOOK_BIN = fileURLToPath(new URL('../../../bin/coord-hook.cjs', import.meta.url));

export interface DaemonRunConfig {
  agents: string;
  repo: string;
}

/** The board as the daemon's own supervisor reaches it: the operations, invoked in process. */
export function supervisorBoardInProcess(ctx: Ctx): SupervisorBoard {
  return {
    claimNext: async (input) => (await invoke(op.claimNext, ctx, input)) as ClaimGrant | null,
    claimTask: async (input) => (await invoke(op.claimTask, ctx, input)) as ClaimGrant,
    heartbeat: (input) => invoke(op.heartbeat, ctx, input),
    release: (input) => invoke(op.releaseTask, ctx, input),
    fail: (input) => invoke(op.submitResult, ctx, { ...input, status: 'failed' }),
    showTask: async (id) => (await invoke(op.showTask, ctx, { task_id: id })).task as Task,
    reservePort: (input) => invoke(op.reservePort, ctx, input),
    renewLock: (input) => invoke(op.renewLock, ctx, input),
    unlock: (lock_id) => invoke(op.unlockFiles, ctx, { lock_id }),
    reportRun: (run) => invoke(op.reportRun, ctx, run),
  };
}

export async function superviseInDaemon(
  ctx: Ctx,
  log: Logger,
  stateDir: string,
  cfg: DaemonRunConfig,
  site: { url: string; token: string },
): Promise<() => Promise<void>> {
  const agents = parseAgentsSpec(cfg.agents);
  const profiles = headlessProfiles(
    agents.map((a) => a.client),
    process.env.PATH,
  );
  const top = await repositoryOf(cfg.repo);
  if (top === null) throw new Error(`--run: ${cfg.repo} is not in a git repository (--run-repo DIR)`);
  const common = (await runGit(top, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim();
  const repo = common.endsWith('/.git') ? common.slice(0, -'/.git'.length) : top;
  const board = boardForRepo(repo);
  const tied = await ctx.store.boardRepo(board);
  const target = tied?.target ?? (await defaultTarget(repo));
  if (target === null) throw new Error(`--run: ${repo} has no target branch (no main or master)`);
  // The board learns its repository now, not on the first task's way to its agent (as `coord run` does); and the
  // MCP SDK is loaded now, not on the first agent's way to its first model request (its session opens it).
  if (!tied) await invoke(op.listWorktrees, ctx, { board, worktree: repo }).catch(() => null);
  void sdk().catch(() => undefined);
  const supervisor = new Supervisor(supervisorBoardInProcess(ctx), {
    board,
    repo,
    commonDir: common,
    target,
    agents,
    profiles,
    once: false,
    worktreesDir: defaultWorktrees(repo),
    retries: 1,
    backoffMs: 5000,
    taskTimeoutS: 1800,
    budget: {},
    pauseAfterS: 60,
    graceMs: 10_000,
    keepWorktrees: false,
    leaseS: 120,
    coord: {
      node: process.execPath,
      bin: realpathSync(BIN),
      hookBin: existsSync(HOOK_BIN) ? realpathSync(HOOK_BIN) : realpathSync(BIN),
      stateArgs: ['--state', stateDir],
      hookSite: hookSite(site.url, hookKeyOf(site.token)),
    },
    scratchDir: join(stateDir, 'run'),
    env: process.env,
    holder: `coord serve --run (pid ${process.pid} on ${hostname()})`,
    log: (line) => log.info({ board }, line),
  });
  log.info({ board, agents: cfg.agents, repo, target }, 'supervising agents (coord serve --run)');
  const running = supervisor.run().catch((err) => log.error({ err }, 'the supervisor stopped'));
  return async () => {
    supervisor.stop();
    await running;
  };
}
