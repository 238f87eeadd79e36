/**
 * `coord integrate` (SPEC §15): the integrator in the foreground, merging the board's finished work into
 * the target in order, exactly once; and `coord approve ID` for merges held by `--review`.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { CoordError } from '../../core/errors.js';
import { type CheckPlan, checkPlan, type QueuedIntegration } from '../../core/integration/integration.js';
import { operations } from '../../core/operations.js';
import { fetchBranch } from '../../git/integrate-remote.js';
import { defaultTarget, repositoryOf } from '../../git/integrate-target.js';
import { Integrator, type IntegratorBoard, SlotLost, type TurnResult } from '../../git/integrator.js';
import { runGit } from '../../git/run-git.js';
import { action, type CommonFlags, type Invocation, resolveInvocation, withCommon } from '../common.js';
import { EXIT } from '../exit-codes.js';
import { emit } from '../output.js';

interface IntegrateFlags extends CommonFlags {
  check?: string;
  checkTimeout?: string;
  once?: boolean;
  review?: boolean;
  retry?: string[];
  target?: string;
  repo?: string;
  slotLease?: string;
  window?: string;
  jobs?: string;
  checkRetries?: string;
  lanes?: boolean;
  scope?: string[];
  push?: string;
}

/** The line a person reads about one result. */
export function resultLine(q: QueuedIntegration, target: string, r: TurnResult): string {
  const t = `#${q.task_id}`;
  const follow = r.followup_id ? `: see task #${r.followup_id} (for ${q.agent})` : '';
  switch (r.state) {
    case 'merged':
      return r.how === 'contained'
        ? `${t} was already in ${target} (${r.commit.slice(0, 7)}): merged, no new commit`
        : `${t} merged into ${target} as ${r.commit.slice(0, 7)} (${r.how}${r.flaky ? ', check passed on a retry: flaky' : ''})`;
    case 'ready':
      return `${t} is ready to merge into ${target} as ${r.commit.slice(0, 7)}: coord approve ${q.task_id}`;
    case 'conflict':
      return `${t} conflicts with ${target} in ${r.paths.join(', ')}${follow}`;
    case 'check_failed':
      return `${t} failed the check on ${target}: ${r.reason}${follow}`;
    case 'blocked':
      return `${t} blocked: ${r.reason}`;
  }
}

/** One task's result in `--json`: `{task_id, state, commit?, reason?, followup?}` (SPEC §15). */
interface OnceResult {
  task_id: string;
  state: string;
  commit?: string;
  reason?: string;
  followup?: string;
  flaky?: boolean;
}

const FAILED = new Set(['conflict', 'check_failed', 'blocked']);

function onceResult(task_id: string, r: TurnResult): OnceResult {
  const followup = r.followup_id ? { followup: r.followup_id } : {};
  switch (r.state) {
    case 'merged':
      return { task_id, state: 'merged', commit: r.commit, ...(r.flaky ? { flaky: true } : {}) };
    case 'ready':
      return { task_id, state: 'awaiting_review', commit: r.commit };
    case 'conflict':
      return { task_id, state: 'conflict', reason: r.paths.join(', '), ...followup };
    case 'check_failed':
      return { task_id, state: 'check_failed', commit: r.commit, reason: r.reason, ...followup };
    case 'blocked':
      return { task_id, state: 'blocked', reason: r.reason };
  }
}

/** The board as a CLI process reaches it: the daemon's operations over HTTP. */
export function boardOverHttp(inv: Invocation): IntegratorBoard {
  const c = inv.client;
  return {
    takeSlot: (input) => c.call(operations.takeIntegrationSlot, input),
    releaseSlot: (input) => c.call(operations.releaseIntegrationSlot, input),
    queue: async (board) => (await c.call(operations.integrationQueue, { board })).queue,
    record: (input) => c.call(operations.recordIntegration, input as never),
    window: (input) => c.call(operations.recordIntegrationWindow, input),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The board's target (SPEC §14: `coord target BRANCH`), or null when the daemon does not say. */
const boardTargetOf = (inv: Invocation): Promise<string | null> =>
  inv.client
    .call(operations.listWorktrees, { board: inv.board })
    .then((w) => w.target)
    .catch(() => null);

/** The repository, the target, and (without --target) how to read the board's target again at each turn. */
async function whereToMerge(flags: IntegrateFlags, inv: Invocation) {
  const repo = await repositoryOf(flags.repo ?? process.cwd());
  if (repo === null)
    throw usage(
      `${flags.repo ?? process.cwd()} is not in a git repository: run coord integrate inside it, or pass --repo`,
    );
  const target = flags.target ?? (await boardTargetOf(inv)) ?? (await defaultTarget(repo));
  if (target === null) throw usage(`${repo} has no target branch (no main or master): pass --target BRANCH`);
  // Without --target, `coord target BRANCH` takes effect at the next merge of this run (SPEC §15).
  const currentTarget = flags.target ? undefined : async () => (await boardTargetOf(inv)) ?? target;
  if (flags.push !== undefined) await checkRemote(repo, flags.push, target);
  return { repo, target, currentTarget };
}

/** `--push REMOTE`: a remote git knows, with the target branch on it — else a clear error before anything runs. */
async function checkRemote(repo: string, remote: string, target: string): Promise<void> {
  const known = await runGit(repo, ['remote', 'get-url', remote], { ok: [2, 128] });
  if (known.code !== 0) throw usage(`--push ${remote}: ${repo} has no git remote named ${remote}`);
  const tip = await fetchBranch(repo, remote, target);
  if ('missing' in tip) throw usage(`--push ${remote}: the branch ${target} does not exist on the remote ${remote}`);
  if ('error' in tip) throw usage(`--push ${remote}: the remote could not be fetched: ${tip.error}`);
}

/** The numbers of the flags: the check's time limit in ms, the window plan, the slot's lease in ms. */
function numbers(flags: IntegrateFlags): { timeoutMs: number; plan: CheckPlan; leaseMs: number } {
  const timeout = Number(flags.checkTimeout ?? 600);
  if (!Number.isFinite(timeout) || timeout <= 0) throw usage('--check-timeout takes a number of seconds');
  let plan: CheckPlan;
  try {
    plan = checkPlan(flags);
  } catch (e) {
    throw usage((e as Error).message);
  }
  const lease = Number(flags.slotLease ?? 60);
  if (!Number.isInteger(lease) || lease < 1 || lease > 3600) throw usage('--slot-lease takes 1 to 3600 seconds');
  return { timeoutMs: timeout * 1000, plan, leaseMs: lease * 1000 };
}

/** Turns until stopped (Ctrl-C), or until nothing progresses with `--once`. */
async function runTurns(integrator: Integrator, flags: IntegrateFlags, board: string): Promise<void> {
  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let busyShown = false;
  try {
    while (!stopping) {
      let turn: Awaited<ReturnType<Integrator['turn']>>;
      try {
        turn = await integrator.turn();
      } catch (e) {
        if (!(e instanceof SlotLost) && !isStale(e)) throw e;
        turn = { busy: 'another integrator', progressed: 0 };
      }
      if (turn.busy !== null && !busyShown) {
        busyShown = true;
        process.stderr.write(`coord: the integration slot of ${board} is held by ${turn.busy}; waiting\n`);
        if (flags.once) break;
      }
      if (turn.progressed > 0) continue;
      if (flags.once) break;
      await sleep(1000);
    }
  } finally {
    await integrator.releaseSlot().catch(() => undefined);
  }
}

/** The run's summary: `--json`, or the lines a person reads; exit code 2 when any task did not merge. */
function summarize(flags: IntegrateFlags, integrator: Integrator, all: OnceResult[]): void {
  const flaky = integrator.flakyChecks;
  if (flags.json) emit(flags, { target: integrator.target, results: all, flaky_checks: flaky }, () => '');
  else if (all.length === 0) process.stdout.write(`nothing to merge into ${integrator.target}\n`);
  if (!flags.json && flaky > 0)
    process.stdout.write(
      `the check \`${flags.check}\` passed only on a retry ${flaky} time${flaky === 1 ? '' : 's'} (flaky)\n`,
    );
  // SPEC §15: 2 when any task ended in conflict, check_failed or blocked — a script can tell.
  if (all.some((r) => FAILED.has(r.state))) process.exitCode = EXIT.conflict;
}

/** `coord integrate`: the integrator in the foreground. */
async function runIntegrate(flags: IntegrateFlags): Promise<void> {
  const inv = resolveInvocation(flags);
  const { repo, target, currentTarget } = await whereToMerge(flags, inv);
  for (const id of flags.retry ?? []) await inv.client.call(operations.retryIntegration, { task_id: id });
  const { timeoutMs, plan, leaseMs } = numbers(flags);
  // The last result of each task this run looked at, in the order first seen.
  const results = new Map<string, OnceResult>();
  const integrator: Integrator = new Integrator(boardOverHttp(inv), {
    board: inv.board,
    repo,
    target,
    currentTarget,
    stateDir: inv.stateDir,
    check: flags.check ? { command: flags.check, timeoutMs } : undefined,
    review: flags.review ?? false,
    window: plan.window,
    jobs: plan.jobs,
    checkRetries: plan.retries,
    lanes: plan.lanes ? { scopes: plan.scopes } : undefined,
    maxChecks: plan.maxChecks,
    push: flags.push,
    holder: `coord integrate (pid ${process.pid} on ${hostname()})`,
    leaseMs,
    onResult: (q, r) => {
      results.set(q.task_id, onceResult(q.task_id, r));
      if (!flags.json && !(r.repeated && !flags.once)) process.stdout.write(`${resultLine(q, integrator.target, r)}\n`);
    },
  });
  await integrator.start();
  await runTurns(integrator, flags, inv.board);
  summarize(flags, integrator, [...results.values()]);
}

export function registerIntegrate(program: Command): void {
  withCommon(
    program
      .command('integrate')
      .description('Merge finished work into the target branch in order, exactly once (SPEC §15)')
      .option('--check <cmd>', 'run CMD in a temporary work tree of each merged commit; failure stops the merge')
      .option('--check-timeout <s>', 'time limit of --check in seconds (default 600)')
      .option('--once', 'merge what can be merged now, then exit')
      .option('--review', 'leave each ready merge awaiting_review until `coord approve ID`')
      .option('--window <n>', 'merge the next N tasks cumulatively and check them at once (default 1: one at a time)')
      .option('--jobs <j>', 'how many checks of a window run at once (default N; with --lanes, of all lanes: no cap)')
      .option('--lanes', 'check tasks that change no common file at the same time, in separate lanes (needs --check)')
      .option('--scope <glob...>', "with --lanes: the files under GLOB count as one (e.g. 'src/ui/**'); repeatable")
      .option('--check-retries <k>', 'run a failing check again up to K times before check_failed (default 0)')
      .option('--retry <id...>', 'queue these conflicting, failed or blocked tasks again first')
      .option('--target <branch>', "the branch to merge into (default: the main work tree's branch, else main/master)")
      .option('--repo <dir>', 'the repository (default: the one around the current directory)')
      .option('--push <remote>', "the target is this git remote's branch: fetch it, merge, push by compare-and-swap")
      .option(
        '--slot-lease <s>',
        "how long the board's integration slot outlives this process if it dies (default 60)",
      ),
    { agent: false },
  ).action(action((flags: IntegrateFlags) => runIntegrate(flags)));

  withCommon(
    program
      .command('approve')
      .description('Approve a merge held for review (coord integrate --review): it is merged next')
      .argument('<id>', 'task id'),
    { agent: false, board: false },
  ).action(
    action(async (id: string, flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const res = await inv.client.call(operations.approveIntegration, { task_id: id, agent: inv.agent });
      emit(flags, res, () => `#${id} approved: it is merged at the integrator's next turn`);
    }),
  );
}

const isStale = (e: unknown) => (e as { code?: string } | null)?.code === 'stale_claim';

const usage = (message: string) => new CoordError('invalid_request', message);
