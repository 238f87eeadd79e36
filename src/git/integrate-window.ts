/**
 * The speculative window of the integration queue (SPEC §15, `--window N`, `--jobs J`): the next N tasks in
 * integration order are merged cumulatively in git's object store — T1, T1+T2, … T1+…+TN, each merge on
 * top of the one before, exactly as one-at-a-time would make them if every check passed — and the check
 * runs on each at once, in its own temporary work tree. The target then moves once, by compare-and-swap
 * from the tip the chain was built on, to the longest green prefix. The first red task is `check_failed`;
 * the tasks after it are left undecided, for the caller to merge and check again without it. So the result
 * is exactly what one-at-a-time gives, in the same order — only sooner.
 *
 * A task the chain cannot take (a conflict with what comes before it, a head gone from the repository) is
 * decided in its place in the sequence, and only if everything before it was green: behind a red task it
 * might merge differently, so it is left undecided too.
 *
 * Here: the rounds and the verdicts (the longest green prefix). The chain is built by window-chain.ts and
 * lands by window-land.ts.
 */
import type { CheckVerdict, MergeOutcome, RemoteTarget } from './integrate-merge.js';
import type { RefSwapper } from './ref-swapper.js';
import { chain, type Link, type Step } from './window-chain.js';
import { land, type MergedAs, type Settle, targetTip } from './window-land.js';

export interface WindowTask {
  id: string;
  /** The head a submit recorded. */
  head: string;
  /** The merge commit's message, `coord: integrate #id <title>`. */
  message: string;
  /** The task's branch (`--push`: fetched from the remote when its commits are only there). */
  branch?: string | null | undefined;
}

export interface WindowRequest {
  repo: string;
  target: string;
  /** In integration order. */
  tasks: WindowTask[];
  check: (commit: string, task: WindowTask) => Promise<CheckVerdict>;
  /** The chain's tasks (in order) are about to be checked together: the views show them (integration.window). */
  onChecking?: ((tasks: WindowTask[]) => void) | undefined;
  /** How many checks run at once (`--jobs`). */
  jobs: number;
  beforeSwap?: (() => Promise<void>) | undefined;
  swapper?: RefSwapper | undefined;
  rounds?: number;
  /**
   * `--lanes` (SPEC §15): this window is one lane's; `land` runs the lanes' landings one at a time. A target
   * another lane moved only on other files keeps this window's checks.
   */
  lane?: { land: <T>(fn: () => Promise<T>) => Promise<T> } | undefined;
  /**
   * `--push REMOTE` (SPEC §15 "A shared remote"): the chain is built on the remote's tip and the remote
   * branch is advanced by a compare-and-swap push to the green prefix; the local target follows it.
   */
  remote?: RemoteTarget | undefined;
}

export interface WindowResult {
  /** The tasks decided, in order, each with its outcome; the rest of `tasks` is left for the next window. */
  decided: { task: WindowTask; outcome: MergeOutcome }[];
  /** A check failed in this window (the caller halves it). */
  red: boolean;
}

const isFlaky = (v: CheckVerdict | undefined) => v?.ok === true && v.flaky === true;

export async function integrateWindow(req: WindowRequest): Promise<WindowResult> {
  const ref = `refs/heads/${req.target}`;
  // `--push`: a task's commits only on the remote (pushed from another machine) are fetched first.
  for (const t of req.remote ? req.tasks : []) await req.remote?.fetchTask(t.branch ?? null, t.head);
  for (let round = 0; round < (req.rounds ?? 20); round++) {
    const tip = await targetTip(req, ref);
    if ('reason' in tip) return allBlocked(req, tip.reason);
    const base = tip.sha;
    const steps = await chain(req, base);
    const links = steps.filter((s): s is Link => s.kind === 'link');
    if (links.some((l) => l.checked)) req.onChecking?.(links.map((l) => l.task));
    const verdicts = await checkAll(req, steps);
    const { decided, accepted, red } = greenPrefix(steps, verdicts);
    // The accepted tasks' outcomes, from the links that land (rebased ones when the target moved meanwhile).
    const settle: Settle = (links, outcomeOf) => ({
      decided: decided.map((d) => {
        const link = links.find((l) => l.task === d.task);
        return link ? { task: d.task, outcome: outcomeOf(link) } : d;
      }),
      red,
    });
    const merged: MergedAs = (worktree) => (l) => ({
      state: 'merged',
      how: l.how,
      commit: l.commit,
      old: l.parent,
      worktree,
      ...(isFlaky(verdicts.get(accepted.find((a) => a.task === l.task) ?? l)) ? { flaky: true as const } : {}),
    });
    if ((accepted.at(-1)?.tip ?? base) === base) return settle(accepted, merged(null));

    const landing = () => land(req, ref, tip, accepted, settle, merged);
    // Lanes land one at a time: the target's tip and its checked-out work tree move in one step each.
    const landed = req.lane ? await req.lane.land(landing) : await landing();
    // The target moved meanwhile (on this window's files, without lanes on any): merged and checked again.
    if (landed === 'again') continue;
    return landed;
  }
  return allBlocked(req, `${req.target} kept moving while it was merged; tried again next turn`);
}

const allBlocked = (req: WindowRequest, reason: string): WindowResult => ({
  decided: req.tasks.map((task) => ({ task, outcome: { state: 'blocked', reason } })),
  red: false,
});

/**
 * The longest green prefix: the steps in order up to the first red link, which is `check_failed`; what
 * follows a red task is not decided here. The accepted links' outcomes are placeholders until they land.
 */
function greenPrefix(
  steps: Step[],
  verdicts: Map<Link, CheckVerdict>,
): { decided: WindowResult['decided']; accepted: Link[]; red: boolean } {
  const decided: WindowResult['decided'] = [];
  const accepted: Link[] = [];
  for (const step of steps) {
    if (step.kind === 'decided') {
      decided.push(step);
      continue;
    }
    const verdict = verdicts.get(step);
    if (verdict && !verdict.ok) {
      const outcome: MergeOutcome = {
        state: 'check_failed',
        commit: step.tip,
        old: step.parent,
        output: verdict.output,
        reason: verdict.reason,
      };
      decided.push({ task: step.task, outcome });
      return { decided, accepted, red: true };
    }
    accepted.push(step);
    decided.push({ task: step.task, outcome: { state: 'blocked', reason: 'placeholder' } });
  }
  return { decided, accepted, red: false };
}

/**
 * Runs the checks of the chain's links, at most `jobs` at once, in order. A link after a red one is not
 * started: its result could not be used.
 */
async function checkAll(req: WindowRequest, steps: Step[]): Promise<Map<Link, CheckVerdict>> {
  const links = steps.filter((s): s is Link => s.kind === 'link' && s.checked);
  const verdicts = new Map<Link, CheckVerdict>();
  let next = 0;
  let firstRed = Number.POSITIVE_INFINITY;
  const worker = async () => {
    for (;;) {
      const i = next++;
      const link = links[i];
      if (link === undefined || i > firstRed) return;
      const verdict = await req.check(link.tip, link.task);
      verdicts.set(link, verdict);
      if (!verdict.ok) firstRed = Math.min(firstRed, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(req.jobs, links.length)) }, worker));
  return verdicts;
}
