/**
 * A shared remote as the integration target (SPEC §15 `--push REMOTE`): for machines that share one
 * board, the target is a branch of a git remote. The integrator fetches it, merges on its tip as usual,
 * and advances it by compare-and-swap with `git push --force-with-lease=refs/heads/T:OLD`: the push
 * lands only if the remote branch still names OLD (git checks it again under the remote's ref lock), so a
 * person who pushed meanwhile makes it fail and the merge is computed again on their commit.
 *
 * The local target branch follows the remote's by fast-forward (a checked-out one only when its work tree
 * is clean, updated by `read-tree -m -u` like a local merge); a local branch with commits the remote lacks
 * is left as it is — they are the person's to push.
 */
import type { CoordError } from '../core/errors.js';
import { dirtyPaths, git } from './integrate-git.js';
import type { PushAnswer, RemoteTarget } from './integrate-merge.js';
import { readRefs } from './read-refs.js';
import { runGit } from './run-git.js';

/** A push or fetch over a network takes longer than a local git call; a hung one does not hold the queue. */
const REMOTE_DEADLINE_MS = 120_000;

const remoteGit = (repo: string, args: string[], ok: number[] = []) =>
  runGit(repo, ['-c', 'core.askPass=true', ...args], { ok, deadlineMs: REMOTE_DEADLINE_MS });

/** Where the remote's branch is kept locally: the usual remote-tracking ref. */
export const trackingRef = (remote: string, branch: string) => `refs/remotes/${remote}/${branch}`;

const firstLines = (s: string, n = 3) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, n)
    .join('; ');

/**
 * Fetches `branch` of `remote` into its remote-tracking ref; answers its tip, `missing` when the remote has
 * no such branch, or git's words when the remote cannot be reached.
 */
export async function fetchBranch(
  repo: string,
  remote: string,
  branch: string,
): Promise<{ sha: string } | { missing: true } | { error: string }> {
  const ref = trackingRef(remote, branch);
  const run = await remoteGit(
    repo,
    ['fetch', '--no-tags', '--quiet', remote, `+refs/heads/${branch}:${ref}`],
    [1, 128],
  );
  if (run.code !== 0) {
    if (/couldn't find remote ref/i.test(run.stderr)) return { missing: true };
    return { error: firstLines(run.stderr) || `git fetch ${remote} failed (exit code ${run.code})` };
  }
  const sha = (await readRefs(repo, [ref]))?.get(ref)?.sha;
  return sha ? { sha } : { missing: true };
}

/** The remote's target as a `blocked` reason, or its tip. */
export async function remoteTip(
  repo: string,
  remote: string,
  target: string,
): Promise<{ sha: string } | { reason: string }> {
  const tip = await fetchBranch(repo, remote, target);
  if ('missing' in tip) return { reason: `the branch ${target} does not exist on the remote ${remote}` };
  if ('error' in tip) return { reason: `the remote ${remote} could not be fetched: ${tip.error}` };
  return tip;
}

/**
 * A task's commits that are only on the remote (an agent on another machine pushed its branch): fetched
 * when `head` is not in the repository, by the branch name when there is one, else by the commit itself.
 * Answers whether the branch exists on the remote (its remote-tracking ref is then up to date).
 */
export async function fetchTaskHead(
  repo: string,
  remote: string,
  branch: string | null,
  head: string,
): Promise<boolean> {
  const known = await git(repo, ['cat-file', '-e', `${head}^{commit}`], [1, 128]);
  if (branch !== null) {
    const local = await readRefs(repo, [`refs/heads/${branch}`]);
    if (known.code === 0 && local?.has(`refs/heads/${branch}`)) return true;
    const fetched = await fetchBranch(repo, remote, branch);
    if ('sha' in fetched) {
      if ((await git(repo, ['cat-file', '-e', `${head}^{commit}`], [1, 128])).code !== 0)
        await remoteGit(repo, ['fetch', '--no-tags', '--quiet', remote, head], [1, 128]);
      return true;
    }
    if (known.code !== 0) await remoteGit(repo, ['fetch', '--no-tags', '--quiet', remote, head], [1, 128]);
    return false;
  }
  if (known.code !== 0) await remoteGit(repo, ['fetch', '--no-tags', '--quiet', remote, head], [1, 128]);
  return false;
}

/**
 * The compare-and-swap on the remote: `git push --force-with-lease=refs/heads/T:OLD REMOTE NEW:refs/heads/T`.
 * Whatever git answers, a refused push is told apart by fetching the branch again: it names NEW (the push
 * landed after all), something other than OLD (the remote moved: compute again), or still OLD (refused for
 * another reason: a hook, permissions — git's lines are the reason).
 */
export async function pushSwap(
  repo: string,
  remote: string,
  target: string,
  next: string,
  old: string,
): Promise<PushAnswer> {
  const ref = `refs/heads/${target}`;
  const run = await remoteGit(
    repo,
    ['push', '--porcelain', '--quiet', `--force-with-lease=${ref}:${old}`, remote, `${next}:${ref}`],
    [1, 128],
  ).catch((e: CoordError) => ({ code: -1, stdout: '', stderr: String(e.details?.stderr ?? e.message) }));
  if (run.code === 0) return { pushed: true };
  const now = await fetchBranch(repo, remote, target);
  if ('sha' in now && now.sha === next) return { pushed: true };
  if ('sha' in now && now.sha !== old) return { pushed: false, moved: true };
  if ('missing' in now) return { pushed: false, reason: `the branch ${target} does not exist on the remote ${remote}` };
  const status = run.stdout.split('\n').find((l) => l.startsWith('!')) ?? '';
  const said = [
    ...run.stderr.split('\n').filter((l) => /^(remote:|error:|fatal:)/.test(l.trim())),
    status.split('\t').pop() ?? '',
  ];
  return {
    pushed: false,
    reason: `the remote ${remote} refused the push to ${target}: ${firstLines(said.join('\n'), 4) || `exit code ${run.code}`}`,
  };
}

/**
 * The local target follows the remote's tip: a fast-forward by compare-and-swap (reflog `coord: integrate`,
 * so a crash before its work tree is updated is repaired like a local merge: target-repair.ts), and a
 * checked-out work tree updated with it. Answers a `blocked` reason when a checked-out work tree is dirty
 * or cannot be updated (nothing changed then), else null — also when the local branch does not exist or
 * has commits the remote lacks (left alone).
 */
export async function followRemote(repo: string, target: string, tip: string): Promise<string | null> {
  const ref = `refs/heads/${target}`;
  const local = (await readRefs(repo, [ref]))?.get(ref);
  if (!local || local.sha === tip) return null;
  const ff = await git(repo, ['merge-base', '--is-ancestor', local.sha, tip], [1, 128]);
  if (ff.code !== 0) return null;
  if (local.worktree !== null) {
    const dirty = await dirtyPaths(local.worktree);
    if (dirty.length > 0)
      return `${target} is checked out in ${local.worktree} with uncommitted changes: ${dirty.slice(0, 20).join(', ')}`;
  }
  const moved = await git(
    repo,
    ['update-ref', '-m', 'coord: integrate (follow the remote)', ref, tip, local.sha],
    [1, 128],
  );
  if (moved.code !== 0 || local.worktree === null) return null;
  const refused = await git(local.worktree, ['read-tree', '-m', '-u', local.sha, tip]).then(
    () => null,
    (e: CoordError) => String(e.details.stderr ?? e.message),
  );
  if (refused === null) return null;
  await git(repo, ['update-ref', ref, local.sha, tip]);
  return `${target} is checked out in ${local.worktree}, which could not be updated: ${refused}`;
}

/** The remote side of a merge request (integrate-merge.ts `MergeRequest.remote`) for `REMOTE`'s `target`. */
export function remoteTarget(repo: string, remote: string, target: string): RemoteTarget {
  return {
    name: remote,
    fetchTask: (branch, head) => fetchTaskHead(repo, remote, branch, head),
    tip: () => remoteTip(repo, remote, target),
    push: (next, old) => pushSwap(repo, remote, target, next, old),
    follow: (tip) => followRemote(repo, target, tip),
  };
}
