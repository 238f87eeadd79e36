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
 */
import type { CoordError } from '../core/errors.js';
import {
  type CheckVerdict,
  dirtyPaths,
  git,
  IDENTITY,
  type MergeOutcome,
  mergeTree,
  ownMerge,
  type RemoteTarget,
} from './integrate-merge.js';
import { readRefs } from './read-refs.js';
import { type RefSwapper, swapOnce } from './ref-swapper.js';
import { splitZ } from './run-git.js';

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

/** One step of the chain: a task merged on top of the one before (`parent`), making `tip`. */
interface Link {
  kind: 'link';
  task: WindowTask;
  how: 'fast-forward' | 'merge' | 'contained';
  parent: string;
  tip: string;
  /** What is recorded as the task's commit: the tip, or the head for a contained one. */
  commit: string;
  /** A contained head changes nothing: no check. */
  checked: boolean;
}

/** A task decided without joining the chain (conflict, blocked, already in the target). */
interface Decided {
  kind: 'decided';
  task: WindowTask;
  outcome: MergeOutcome;
}

const short = (sha: string) => sha.slice(0, 7);
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

    // The longest green prefix; what follows a red task is not decided here.
    const decided: { task: WindowTask; outcome: MergeOutcome }[] = [];
    const accepted: Link[] = [];
    let red = false;
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
        red = true;
        break;
      }
      accepted.push(step);
      decided.push({ task: step.task, outcome: { state: 'blocked', reason: 'placeholder' } });
    }
    // The accepted tasks' outcomes, from the links that land (rebased ones when the target moved meanwhile).
    const settle = (links: Link[], outcomeOf: (l: Link) => MergeOutcome): WindowResult => ({
      decided: decided.map((d) => {
        const link = links.find((l) => l.task === d.task);
        return link ? { task: d.task, outcome: outcomeOf(link) } : d;
      }),
      red,
    });
    const merged =
      (worktree: string | null) =>
      (l: Link): MergeOutcome => ({
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

/** The tip the chain is built on: the local target's, or (`--push`) the remote's, which the local one follows. */
async function targetTip(
  req: WindowRequest,
  ref: string,
): Promise<{ sha: string; worktree: string | null } | { reason: string }> {
  if (req.remote) {
    const tip = await req.remote.tip();
    if ('reason' in tip) return tip;
    const behind = await req.remote.follow(tip.sha);
    return behind === null ? { sha: tip.sha, worktree: null } : { reason: behind };
  }
  const tip = (await readRefs(req.repo, [ref]))?.get(ref);
  return tip ?? { reason: `the target branch ${req.target} does not exist` };
}

const allBlocked = (req: WindowRequest, reason: string): WindowResult => ({
  decided: req.tasks.map((task) => ({ task, outcome: { state: 'blocked', reason } })),
  red: false,
});

/**
 * Moves the target from the tip the chain was built on to its green prefix's tip, by compare-and-swap, and
 * a checked-out target's work tree with it. In a lane, a target another lane moved only on files this
 * window does not change keeps the checks: the green links are merged again on its new tip (SPEC §15
 * "Lanes": those tasks share no path) and land without a second check.
 */
async function land(
  req: WindowRequest,
  ref: string,
  tip: { sha: string; worktree: string | null },
  accepted: Link[],
  settle: (links: Link[], outcomeOf: (l: Link) => MergeOutcome) => WindowResult,
  merged: (worktree: string | null) => (l: Link) => MergeOutcome,
): Promise<WindowResult | 'again'> {
  let from = tip;
  let links = accepted;
  if (req.lane) {
    const now = await targetTip(req, ref);
    if ('reason' in now) return 'again';
    if (now.sha !== tip.sha) {
      const rebased = await rebaseLinks(req, tip.sha, now.sha, accepted);
      if (rebased === null) return 'again';
      from = now;
      links = rebased;
    }
  }
  const newTip = links.at(-1)?.tip ?? from.sha;
  if (req.remote) return pushLinks(req, req.remote, ref, from.sha, newTip, links, settle, merged);
  const worktree = from.worktree;
  if (worktree !== null) {
    const dirty = await dirtyPaths(worktree);
    if (dirty.length > 0) {
      const reason = `${req.target} is checked out in ${worktree} with uncommitted changes: ${dirty.slice(0, 20).join(', ')}`;
      return settle(links, () => ({ state: 'blocked', reason }));
    }
  }
  await req.beforeSwap?.();
  const message = links.at(-1)?.task.message ?? 'coord: integrate';
  const swapped = req.swapper
    ? await req.swapper.swap(req.repo, ref, newTip, from.sha)
    : await swapOnce(req.repo, ref, newTip, from.sha, message);
  if (!swapped) return 'again';
  if (worktree !== null) {
    const refused = await git(worktree, ['read-tree', '-m', '-u', from.sha, newTip]).then(
      () => null,
      (e: CoordError) => String(e.details.stderr ?? e.message),
    );
    if (refused !== null) {
      await git(req.repo, ['update-ref', ref, from.sha, newTip]);
      const reason = `${req.target} is checked out in ${worktree}, which could not be updated: ${refused}`;
      return settle(links, () => ({ state: 'blocked', reason }));
    }
  }
  return settle(links, merged(worktree));
}

/**
 * `--push`: the remote branch moves from `from` to `newTip` by a compare-and-swap push (integrate-remote.ts);
 * a remote that moved meanwhile is 'again', one that refuses for another reason (a hook, permissions) leaves
 * the green tasks `blocked` with git's line. The local target then follows (a checked-out one only clean).
 */
async function pushLinks(
  req: WindowRequest,
  remote: RemoteTarget,
  ref: string,
  from: string,
  newTip: string,
  links: Link[],
  settle: (links: Link[], outcomeOf: (l: Link) => MergeOutcome) => WindowResult,
  merged: (worktree: string | null) => (l: Link) => MergeOutcome,
): Promise<WindowResult | 'again'> {
  // As one at a time: a dirty checked-out local target blocks before the remote moves (it could not follow).
  const local = (await readRefs(req.repo, [ref]))?.get(ref);
  const dirty = local?.worktree ? await dirtyPaths(local.worktree) : [];
  if (dirty.length > 0) {
    const reason = `${req.target} is checked out in ${local?.worktree} with uncommitted changes: ${dirty.slice(0, 20).join(', ')}`;
    return settle(links, () => ({ state: 'blocked', reason }));
  }
  await req.beforeSwap?.();
  const pushed = await remote.push(newTip, from);
  if (!pushed.pushed) {
    if ('moved' in pushed) return 'again';
    return settle(links, () => ({ state: 'blocked', reason: pushed.reason }));
  }
  // A refusal to follow (the work tree got dirty meanwhile) is reported by the next turn's round.
  await remote.follow(newTip);
  return settle(links, merged(null));
}

/**
 * The green links merged again on `to`, when the target moved from `from` only on files they do not change;
 * null when it moved on one of theirs (or a merge comes out otherwise): they are checked again.
 */
async function rebaseLinks(req: WindowRequest, from: string, to: string, links: Link[]): Promise<Link[] | null> {
  const last = links.at(-1);
  if (!last) return null;
  const [mine, theirs] = await Promise.all([changedFiles(req.repo, from, last.tip), changedFiles(req.repo, from, to)]);
  if (mine === null || theirs === null || [...mine].some((p) => theirs.has(p))) return null;
  const steps = await chain({ ...req, tasks: links.map((l) => l.task) }, to);
  return steps.every((s) => s.kind === 'link') ? steps : null;
}

/** The files that differ between two commits (a rename: both names); null when git cannot say. */
async function changedFiles(repo: string, a: string, b: string): Promise<Set<string> | null> {
  const r = await git(repo, ['diff', '--name-only', '-z', '--no-renames', a, b], [128]);
  if (r.code !== 0) return null;
  return new Set(splitZ(r.stdout));
}

/** The cumulative merges T1, T1+T2, … on `base`, in the object store; tasks that cannot join are decided in place. */
async function chain(req: WindowRequest, base: string): Promise<(Link | Decided)[]> {
  const steps: (Link | Decided)[] = [];
  let prev = base;
  for (const task of req.tasks) {
    const head = task.head;
    const mb = await git(req.repo, ['merge-base', prev, head], [1]).catch(async (e: CoordError) => {
      const known = await git(req.repo, ['cat-file', '-e', `${head}^{commit}`], [1, 128]);
      if (known.code !== 0) return null;
      throw e;
    });
    if (mb === null) {
      const reason = `commit ${short(head)} is not in the repository any more; a new submit records another`;
      steps.push({ kind: 'decided', task, outcome: { state: 'blocked', reason } });
      continue;
    }
    if (mb.code === 1) {
      const reason = `${short(head)} has no history in common with ${req.target}`;
      steps.push({ kind: 'decided', task, outcome: { state: 'blocked', reason } });
      continue;
    }
    const mbSha = mb.stdout.trim();
    if (mbSha === head) {
      if (prev === base) {
        // Already in the target (merged by hand, or by an integrator that died before recording it).
        const subject = task.message.split('\n')[0] ?? '';
        const mergedAs = await ownMerge(req.repo, base, head, subject);
        const outcome: MergeOutcome =
          mergedAs === null
            ? { state: 'merged', how: 'contained', commit: head, old: base, worktree: null }
            : { state: 'merged', how: 'merge', commit: mergedAs, old: base, worktree: null };
        steps.push({ kind: 'decided', task, outcome });
      } else {
        steps.push({ kind: 'link', task, how: 'contained', parent: prev, tip: prev, commit: head, checked: false });
      }
      continue;
    }
    if (mbSha === prev) {
      steps.push({ kind: 'link', task, how: 'fast-forward', parent: prev, tip: head, commit: head, checked: true });
      prev = head;
      continue;
    }
    const m = await mergeTree(req.repo, prev, head);
    if ('conflicts' in m) {
      steps.push({ kind: 'decided', task, outcome: { state: 'conflict', paths: m.conflicts, old: prev } });
      continue;
    }
    const commit = (
      await git(req.repo, ['commit-tree', m.tree, '-p', prev, '-p', head, '-m', task.message], [], IDENTITY)
    ).stdout.trim();
    steps.push({ kind: 'link', task, how: 'merge', parent: prev, tip: commit, commit, checked: true });
    prev = commit;
  }
  return steps;
}

/**
 * Runs the checks of the chain's links, at most `jobs` at once, in order. A link after a red one is not
 * started: its result could not be used.
 */
async function checkAll(req: WindowRequest, steps: (Link | Decided)[]): Promise<Map<Link, CheckVerdict>> {
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
