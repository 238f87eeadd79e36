/**
 * The speculative window's batch (integrate-window.ts): the next tasks merged cumulatively in git's object
 * store — T1, T1+T2, … each merge on top of the one before, exactly as one-at-a-time would make them if every
 * check passed. A task the chain cannot take (a conflict with what comes before it, a head gone from the
 * repository) is decided in its place in the sequence.
 */
import type { CoordError } from '../core/errors.js';
import { git, IDENTITY, mergeTree, ownMerge } from './integrate-git.js';
import type { MergeOutcome } from './integrate-merge.js';
import type { WindowRequest, WindowTask } from './integrate-window.js';
import { splitZ } from './run-git.js';

/** One step of the chain: a task merged on top of the one before (`parent`), making `tip`. */
export interface Link {
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
export interface Decided {
  kind: 'decided';
  task: WindowTask;
  outcome: MergeOutcome;
}

export type Step = Link | Decided;

const short = (sha: string) => sha.slice(0, 7);

type ChainOf = Pick<WindowRequest, 'repo' | 'target' | 'tasks'>;

/** The cumulative merges T1, T1+T2, … on `base`, in the object store; tasks that cannot join are decided in place. */
export async function chain(req: ChainOf, base: string): Promise<Step[]> {
  const steps: Step[] = [];
  let prev = base;
  for (const task of req.tasks) {
    const step = await nextStep(req, task, base, prev);
    steps.push(step);
    if (step.kind === 'link') prev = step.tip;
  }
  return steps;
}

/** `task` merged on `prev` (the chain so far, built on `base`): a link, or decided where it stands. */
async function nextStep(req: ChainOf, task: WindowTask, base: string, prev: string): Promise<Step> {
  const head = task.head;
  const blocked = (reason: string): Decided => ({ kind: 'decided', task, outcome: { state: 'blocked', reason } });
  const mb = await git(req.repo, ['merge-base', prev, head], [1]).catch(async (e: CoordError) => {
    const known = await git(req.repo, ['cat-file', '-e', `${head}^{commit}`], [1, 128]);
    if (known.code !== 0) return null;
    throw e;
  });
  if (mb === null)
    return blocked(`commit ${short(head)} is not in the repository any more; a new submit records another`);
  if (mb.code === 1) return blocked(`${short(head)} has no history in common with ${req.target}`);
  const mbSha = mb.stdout.trim();
  if (mbSha === head) {
    if (prev !== base)
      return { kind: 'link', task, how: 'contained', parent: prev, tip: prev, commit: head, checked: false };
    // Already in the target (merged by hand, or by an integrator that died before recording it).
    const subject = task.message.split('\n')[0] ?? '';
    const mergedAs = await ownMerge(req.repo, base, head, subject);
    const outcome: MergeOutcome =
      mergedAs === null
        ? { state: 'merged', how: 'contained', commit: head, old: base, worktree: null }
        : { state: 'merged', how: 'merge', commit: mergedAs, old: base, worktree: null };
    return { kind: 'decided', task, outcome };
  }
  if (mbSha === prev)
    return { kind: 'link', task, how: 'fast-forward', parent: prev, tip: head, commit: head, checked: true };
  const m = await mergeTree(req.repo, prev, head);
  if ('conflicts' in m) return { kind: 'decided', task, outcome: { state: 'conflict', paths: m.conflicts, old: prev } };
  const commit = (
    await git(req.repo, ['commit-tree', m.tree, '-p', prev, '-p', head, '-m', task.message], [], IDENTITY)
  ).stdout.trim();
  return { kind: 'link', task, how: 'merge', parent: prev, tip: commit, commit, checked: true };
}

/**
 * The green links merged again on `to`, when the target moved from `from` only on files they do not change;
 * null when it moved on one of theirs (or a merge comes out otherwise): they are checked again.
 */
export async function rebaseLinks(req: ChainOf, from: string, to: string, links: Link[]): Promise<Link[] | null> {
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
