/**
 * The merge engine of the integration queue (SPEC §15): merge a task's head into the target branch in
 * git's object store, never in anyone's work tree, and move the target exactly once.
 *
 * - `git merge-tree --write-tree` computes the merge; conflicting paths come back as a value.
 * - Fast-forward where the target is an ancestor of the head; a head already in the target is merged
 *   with no new commit; else one merge commit whose first parent is the old target tip.
 * - The ref moves only by compare-and-swap from the tip the merge was computed on
 *   (`git update-ref refs/heads/T NEW OLD`, or that update in an `update-ref --stdin`: ref-swapper.ts). A person committing to the target meanwhile makes the swap
 *   fail, and the merge is computed again on top of their commit: their commit is never lost.
 * - A target checked out in a work tree: a clean tree is updated with it (`read-tree -m -u`, which refuses
 *   to overwrite anything); a dirty one blocks, and nothing changes.
 */
import type { CoordError } from '../core/errors.js';
import { dirtyTarget, git, IDENTITY, mergeTree, ownMerge, unusable, updateWorktree } from './integrate-git.js';
import { readRefs } from './read-refs.js';
import { type RefSwapper, swapOnce } from './ref-swapper.js';

/** What the check of a merged commit said (see integrate-check.ts). */
export type CheckVerdict = { ok: true; flaky?: true } | { ok: false; output: string; reason: string };

export interface MergeRequest {
  /** A directory of the repository: its main work tree, a linked one, or a bare repository. */
  repo: string;
  /** The target branch's short name (`main`). */
  target: string;
  /** The task's branch as recorded at submit, null for a detached HEAD: it must still exist. */
  branch: string | null;
  /** The commit to merge (the change record's head). */
  head: string;
  /** The merge commit's message, `coord: integrate #id <title>`. */
  message: string;
  /** Runs the check on the merged commit before the target moves (`--check CMD`). */
  check?: ((commit: string) => Promise<CheckVerdict>) | undefined;
  /** How many times a moved target is merged again before giving up this turn (default 20). */
  rounds?: number;
  /**
   * Called after the merge is computed and checked, just before the swap: the integrator renews its slot
   * here (and throws if it lost it); tests interleave a person's commit here.
   */
  beforeSwap?: ((commit: string) => Promise<void>) | undefined;
  /** Compute and check only (`--review`): answers `ready` and moves nothing. */
  dryRun?: boolean;
  /** The integrator's turn's swaps (one `update-ref --stdin` process); else one process per swap. */
  swapper?: RefSwapper | undefined;
  /** `--push REMOTE`: the target is the remote's branch, advanced by push (integrate-remote.ts). */
  remote?: RemoteTarget | undefined;
}

export type PushAnswer = { pushed: true } | { pushed: false; moved: true } | { pushed: false; reason: string };

/** The target as a remote's branch (`--push REMOTE`, SPEC §15): implemented by integrate-remote.ts. */
export interface RemoteTarget {
  /** The remote's name, for reasons. */
  name: string;
  /** Fetches a task's commits that are only on the remote; answers whether its branch exists there. */
  fetchTask(branch: string | null, head: string): Promise<boolean>;
  /** Fetches the remote's target: its tip, or why it cannot be merged into. */
  tip(): Promise<{ sha: string } | { reason: string }>;
  /** The compare-and-swap: pushes NEW only if the remote branch still names OLD. */
  push(next: string, old: string): Promise<PushAnswer>;
  /** The local target follows the remote's tip; a `blocked` reason when its checked-out work tree stops it. */
  follow(tip: string): Promise<string | null>;
}

export type MergeHow = 'fast-forward' | 'merge' | 'contained';

export type MergeOutcome =
  /** `commit` is the target's new tip (for `contained`, the head itself, already in the target). */
  | { state: 'merged'; how: MergeHow; commit: string; old: string; worktree: string | null; flaky?: true }
  /** dryRun: the merge that would be made, checked. */
  | { state: 'ready'; how: MergeHow; commit: string; old: string }
  | { state: 'conflict'; paths: string[]; old: string }
  | { state: 'check_failed'; commit: string; old: string; output: string; reason: string }
  /** Nothing changed; `reason` says what a person must do (or what will unblock it by itself). */
  | { state: 'blocked'; reason: string };

const short = (sha: string) => sha.slice(0, 7);

/** Where the target stands for one round: its tip, the work tree it is checked out in, or why it cannot be used. */
type TargetAt = { old: string; worktree: string | null } | { blocked: string };

/** The local target's tip and work tree, and that the task's branch still exists (read-refs.ts). */
async function localTarget(req: MergeRequest, branchElsewhere: boolean): Promise<TargetAt> {
  const ref = `refs/heads/${req.target}`;
  const branchRef = req.branch === null || branchElsewhere ? [] : [`refs/heads/${req.branch}`];
  const refs = await readRefs(req.repo, [ref, ...branchRef]);
  if (refs === null) return { blocked: (await unusable(req.repo)) ?? `git cannot read ${req.repo}` };
  const target = refs.get(ref);
  if (!target && !req.remote) return { blocked: `the target branch ${req.target} does not exist` };
  if (branchRef.length > 0 && !refs.has(branchRef[0] ?? ''))
    return {
      blocked: `branch ${req.branch} no longer exists; its head ${short(req.head)} is kept in the change record`,
    };
  return { old: target?.sha ?? '', worktree: target?.worktree ?? null };
}

/** The target for this round: the local branch, or (`--push`) the remote's tip with the local one following it. */
async function targetAt(req: MergeRequest, branchElsewhere: boolean): Promise<TargetAt> {
  const local = await localTarget(req, branchElsewhere);
  if (!req.remote || 'blocked' in local) return local;
  const tip = await req.remote.tip();
  if ('reason' in tip) return { blocked: tip.reason };
  const behind = await req.remote.follow(tip.sha);
  if (behind !== null) return { blocked: behind };
  return { old: tip.sha, worktree: local.worktree };
}

type Computed =
  | { kind: 'outcome'; outcome: MergeOutcome }
  | { kind: 'move'; commit: string; how: Exclude<MergeHow, 'contained'> };

/**
 * The merge of `head` on `old`: contained, fast-forward, a merge commit, a conflict, or a reason it is
 * blocked. The merge (merge-tree, then commit-tree) is made beside the merge base, not after it; it is
 * used only when neither commit contains the other, and otherwise leaves only unreferenced objects.
 */
async function computeMerge(req: MergeRequest, old: string): Promise<Computed> {
  const head = req.head;
  const [base, merged] = await Promise.all([
    // 1: no common ancestor; a head that is not in the repository fails (128): told apart below.
    git(req.repo, ['merge-base', old, head], [1]).catch(async (e: CoordError) => {
      const known = await git(req.repo, ['cat-file', '-e', `${head}^{commit}`], [1, 128]);
      if (known.code !== 0) return null;
      throw e;
    }),
    // The merge commit is written as soon as its tree is: an unreferenced object if unused.
    mergeTree(req.repo, old, head)
      .then(async (m) =>
        'conflicts' in m
          ? m
          : {
              commit: (
                await git(req.repo, ['commit-tree', m.tree, '-p', old, '-p', head, '-m', req.message], [], IDENTITY)
              ).stdout.trim(),
            },
      )
      .catch((e: Error) => e),
  ]);
  const blocked = (reason: string): Computed => ({ kind: 'outcome', outcome: { state: 'blocked', reason } });
  if (base === null) return blocked(`commit ${short(head)} is not in the repository any more`);
  if (base.code === 1) return blocked(`${short(head)} has no history in common with ${req.target}`);
  const baseSha = base.stdout.trim();
  if (baseSha === head) {
    const subject = req.message.split('\n')[0] ?? '';
    const mergedAs = await ownMerge(req.repo, old, head, subject);
    const outcome: MergeOutcome =
      mergedAs === null
        ? { state: 'merged', how: 'contained', commit: head, old, worktree: null }
        : { state: 'merged', how: 'merge', commit: mergedAs, old, worktree: null };
    return { kind: 'outcome', outcome };
  }
  if (baseSha === old) return { kind: 'move', commit: head, how: 'fast-forward' };
  if (merged instanceof Error) throw merged;
  if ('conflicts' in merged) return { kind: 'outcome', outcome: { state: 'conflict', paths: merged.conflicts, old } };
  return { kind: 'move', commit: merged.commit, how: 'merge' };
}

/** The swap: true moved, false the target moved meanwhile (merge again), a string a `blocked` reason. */
async function swapTarget(req: MergeRequest, commit: string, old: string): Promise<boolean | string> {
  if (req.remote) {
    const pushed = await req.remote.push(commit, old);
    return pushed.pushed ? true : 'reason' in pushed ? pushed.reason : false;
  }
  const ref = `refs/heads/${req.target}`;
  return req.swapper
    ? await req.swapper.swap(req.repo, ref, commit, old)
    : await swapOnce(req.repo, ref, commit, old, req.message);
}

/**
 * Merges `head` into `target` once (see the file comment). Never throws for a state of the repository a
 * person can fix: that is `blocked` with the reason; a git failure nobody expects still throws.
 */
export async function integrateHead(req: MergeRequest): Promise<MergeOutcome> {
  // `--push`: a task's commits only on the remote are fetched first; its branch may live only there.
  const branchElsewhere = req.remote ? await req.remote.fetchTask(req.branch, req.head) : false;
  for (let round = 0; round < (req.rounds ?? 20); round++) {
    const at = await targetAt(req, branchElsewhere);
    if ('blocked' in at) return { state: 'blocked', reason: at.blocked };
    const { old } = at;
    const computed = await computeMerge(req, old);
    if (computed.kind === 'outcome') return computed.outcome;
    const { commit, how } = computed;

    let flaky = false;
    if (req.check) {
      const verdict = await req.check(commit);
      if (!verdict.ok) return { state: 'check_failed', commit, old, output: verdict.output, reason: verdict.reason };
      flaky = verdict.flaky === true;
    }
    if (req.dryRun) return { state: 'ready', how, commit, old };
    const moved = await moveTarget(req, at, commit);
    // A moved target failed the swap: merged again on top of it.
    if (moved === 'again') continue;
    if (moved !== null) return { state: 'blocked', reason: moved };
    return { state: 'merged', how, commit, old, worktree: at.worktree, ...(flaky ? { flaky: true as const } : {}) };
  }
  return { state: 'blocked', reason: `${req.target} kept moving while it was merged; tried again next turn` };
}

/**
 * The target moved from `old` to the merged, checked `commit`: the swap, then a checked-out work tree (or,
 * with `--push`, the local target) following it. Answers null when it moved, 'again' when the target moved
 * meanwhile, or a `blocked` reason (nothing changed).
 */
async function moveTarget(
  req: MergeRequest,
  { old, worktree }: { old: string; worktree: string | null },
  commit: string,
): Promise<string | null | 'again'> {
  const dirty = await dirtyTarget(req.target, worktree);
  if (dirty !== null) return dirty;
  await req.beforeSwap?.(commit);
  // The swap: only from the tip this merge was computed on. A moved target fails here and is merged again.
  const swapped = await swapTarget(req, commit, old);
  if (swapped === false) return 'again';
  if (typeof swapped === 'string') return swapped;
  // The remote moved: the local target follows it (a refusal there leaves it for the next turn to report).
  if (req.remote) await req.remote.follow(commit);
  else if (worktree !== null) return updateWorktree(req, worktree, old, commit);
  return null;
}
