/**
 * git as the merge engine runs it (integrate-merge.ts, integrate-window.ts): with a deadline, as coord on the
 * commits it writes, and the few questions it asks of a repository — its merge of two commits as a tree,
 * a work tree's changed paths, and the merge commit an interrupted integrator already made.
 */
import type { CoordError } from '../core/errors.js';
import { type GitRun, runGit, splitZ } from './run-git.js';

/** coord's name on the merge commits it writes: the merge is its act, whoever configured the repository. */
export const IDENTITY = {
  GIT_AUTHOR_NAME: 'coord',
  GIT_AUTHOR_EMAIL: 'coord@localhost',
  GIT_COMMITTER_NAME: 'coord',
  GIT_COMMITTER_EMAIL: 'coord@localhost',
};

/** A merge of a large repository (or a slow disk) still fits; a hung git does not hold the queue forever. */
const MERGE_DEADLINE_MS = 60_000;

/** git in the merge engine: `ok` lists the exit codes that are answers. */
export const git = (cwd: string, args: string[], ok: number[] = [], env?: Record<string, string>): Promise<GitRun> =>
  runGit(cwd, args, { ok, deadlineMs: MERGE_DEADLINE_MS, ...(env ? { env } : {}) });

/** The work tree that has `refs/heads/<target>` checked out, if any (`git worktree list --porcelain -z`). */
export async function checkedOutAt(repo: string, target: string): Promise<string | null> {
  const fields = splitZ((await git(repo, ['worktree', 'list', '--porcelain', '-z'])).stdout);
  let path: string | null = null;
  for (const field of fields) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    else if (field === `branch refs/heads/${target}` && path !== null) return path;
  }
  return null;
}

/** Paths with staged or unstaged changes in a work tree (untracked files do not count: read-tree guards them). */
export async function dirtyPaths(worktree: string): Promise<string[]> {
  // Not trimmed: a status entry starts with a space when only the work tree differs (` M path`).
  const fields = splitZ((await git(worktree, ['status', '--porcelain', '-z', '--untracked-files=no'])).stdout);
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? '';
    paths.push(entry.slice(3));
    // A rename or copy carries its source path as the next field.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/** A checked-out target with staged or unstaged changes: the `blocked` reason, else null. */
export async function dirtyTarget(target: string, worktree: string | null): Promise<string | null> {
  if (worktree === null) return null;
  const dirty = await dirtyPaths(worktree);
  return dirty.length > 0
    ? `${target} is checked out in ${worktree} with uncommitted changes: ${dirty.slice(0, 20).join(', ')}`
    : null;
}

/**
 * After a local swap, a checked-out target's work tree: two-tree checkout of old → new, which refuses
 * (changing nothing) if it would overwrite a local change or an untracked file; then the ref is swapped
 * back, so the target and its work tree still agree. Answers a `blocked` reason, or null.
 */
export async function updateWorktree(
  req: { repo: string; target: string },
  worktree: string,
  old: string,
  commit: string,
): Promise<string | null> {
  const refused = await git(worktree, ['read-tree', '-m', '-u', old, commit]).then(
    () => null,
    (e: CoordError) => String(e.details.stderr ?? e.message),
  );
  if (refused === null) return null;
  await git(req.repo, ['update-ref', `refs/heads/${req.target}`, old, commit]);
  return `${req.target} is checked out in ${worktree}, which could not be updated: ${refused}`;
}

/** The merge of `ours` and `theirs` as a tree, or the conflicting paths. */
export async function mergeTree(
  repo: string,
  ours: string,
  theirs: string,
): Promise<{ tree: string } | { conflicts: string[] }> {
  const args = ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs];
  const run = await git(repo, args, [1]);
  const [tree = '', ...paths] = splitZ(run.stdout);
  return run.code === 0 ? { tree } : { conflicts: [...new Set(paths.filter((p) => p !== ''))] };
}

/** Why this repository cannot be merged into at all, or null when it can. */
export async function unusable(repo: string): Promise<string | null> {
  try {
    await git(repo, ['rev-parse', '--git-dir']);
    return null;
  } catch (e) {
    return /does not exist/.test((e as Error).message)
      ? `${repo} does not exist any more`
      : `${repo} is not a git repository any more`;
  }
}

/**
 * The merge commit this engine made of `head` on `target`'s first-parent line (its subject is `subject`,
 * `head` a later parent), or null. An integrator that died after its swap and before recording it left
 * one: the head is then in the target, and the result to record is that commit, not the head.
 */
export async function ownMerge(repo: string, tip: string, head: string, subject: string): Promise<string | null> {
  // Only the first-parent commits not reachable from the head can have merged it; bounded all the same.
  const args = ['log', '--first-parent', '--max-count=1000', '--format=%H%x00%P%x00%s', tip, `^${head}`, '--'];
  const run = await git(repo, args).catch(() => null);
  for (const line of run?.stdout.split('\n') ?? []) {
    const [sha = '', parents = '', s = ''] = line.split('\0');
    if (s === subject && parents.split(' ').slice(1).includes(head)) return sha;
  }
  return null;
}
