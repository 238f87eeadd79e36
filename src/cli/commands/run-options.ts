/**
 * `coord run`'s flags (SPEC §18): their declaration, and what they resolve to — the repository and target,
 * the supervisor's limits (each number checked: a bad one is a usage error naming its flag), and how the
 * agents reach this coord.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { hookSite } from '../../api/paths.js';
import { CoordError } from '../../core/errors.js';
import { operations } from '../../core/operations.js';
import { defaultTarget, repositoryOf } from '../../git/integrate-target.js';
import { runGit } from '../../git/run-git.js';
import { hookKeyOf, readToken } from '../../state-dir/token.js';
import type { CoordLaunch } from '../../supervisor/options.js';
import { realDir } from '../../supervisor/supervisor.js';
import type { CommonFlags, Invocation } from '../common.js';

export interface RunFlags extends CommonFlags {
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

export const BIN = fileURLToPath(new URL('../../../bin/coord.js', import.meta.url));
const HOOK_BIN = fileURLToPath(new URL('../../../bin/coord-hook.cjs', import.meta.url));

export const usage = (message: string) => new CoordError('invalid_request', message);

/** The `coord run` command with its flags declared (the common ones are added by withCommon). */
export function runCommand(program: Command): Command {
  return program
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
    .option('--repo <dir>', 'the repository (default: the one around the current directory)');
}

const num = (flag: string, v: string | undefined, dflt: number, min = 0): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw usage(`${flag} takes a number ≥ ${min}, got "${v}"`);
  return n;
};

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

/** The supervisor's limits, from the flags (each checked: a bad number is a usage error naming its flag). */
export function limitsOf(flags: RunFlags) {
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

/** The repository `coord run` works in: its main work tree (even from inside a linked one) and its common dir. */
export async function repositoryFor(flags: RunFlags): Promise<{ repo: string; common: string }> {
  const top = await repositoryOf(flags.repo ?? process.cwd());
  if (top === null)
    throw usage(`${flags.repo ?? process.cwd()} is not in a git repository: run coord run inside it, or pass --repo`);
  const common = (await runGit(top, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim();
  // The main work tree (the common dir's folder), even when coord run is started inside a linked one.
  return { repo: common.endsWith('/.git') ? common.slice(0, -'/.git'.length) : top, common };
}

/**
 * --target, else the board's target, else the repository's main or master. Once it is known, the board learns
 * its repository (SPEC §14, first sight) now rather than on the first task's way to its agent: one listing of
 * the work trees at most (an untied board answers the first question at once, with no listing).
 */
export async function targetFor(inv: Invocation, flags: RunFlags, repo: string): Promise<string> {
  const learn = () => inv.client.call(operations.listWorktrees, { board: inv.board, worktree: repo }).catch(() => null);
  if (flags.target) {
    await learn();
    return flags.target;
  }
  const boardTarget = await inv.client
    .call(operations.listWorktrees, { board: inv.board })
    .then((w) => w.target)
    .catch(() => null);
  const target = boardTarget ?? (await defaultTarget(repo));
  if (target === null) throw usage(`${repo} has no target branch (no main or master): pass --target BRANCH`);
  if (boardTarget === null) await learn();
  return target;
}

/** How the agents reach this coord: its node, its bins, and the state directory pinned (--state, $COORD_STATE). */
export function coordCommand(inv: Invocation, flags: RunFlags) {
  const pinned = flags.state ?? process.env.COORD_STATE;
  return {
    node: process.execPath,
    bin: realDir(BIN),
    hookBin: existsSync(HOOK_BIN) ? realpathSync(HOOK_BIN) : realDir(BIN),
    stateArgs: pinned ? ['--state', resolve(pinned)] : ['--state', inv.stateDir],
    hookSite: hookSiteOf(inv.client.url, inv.stateDir),
  };
}

/** The daemon's hook routes and its hook key (derived from its token), or none when the token cannot be read. */
function hookSiteOf(url: string, stateDir: string): CoordLaunch['hookSite'] {
  try {
    return hookSite(url, hookKeyOf(readToken(stateDir)));
  } catch {
    return undefined;
  }
}
