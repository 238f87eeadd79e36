/** Refs: a branch's tip, a merge base, ahead/behind counts, commits in a range. */
import { tipFromFiles } from './read-refs.js';
import { runGit, splitZ } from './run-git.js';

/**
 * The commit a branch names, or null when there is no such branch: read from the ref's file where the
 * repository keeps refs as files (a submit, a first edit and a launch each ask several times; a git process
 * each cost more than the rest of the question), else from git.
 */
export async function branchTip(repo: string, branch: string): Promise<string | null> {
  const read = await tipFromFiles(repo, branch);
  if (read !== undefined) return read;
  const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { ok: [1] });
  return run.code === 0 ? run.stdout.trim() : null;
}

export async function headOf(tree: string): Promise<string | null> {
  const run = await runGit(tree, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { ok: [1] });
  return run.code === 0 ? run.stdout.trim() : null;
}

/** A full commit id (SHA-1 or SHA-256). */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Answers kept, at most (the oldest goes first). */
const KEPT_AT_MOST = 2000;
const kept = new Map<string, Promise<unknown>>();

/**
 * A question about commits named by their ids — a merge base, the paths or lines between two commits, the commits
 * in a range — has one answer for good: a commit id names its whole history. So it is asked of git once per work
 * tree and kept (a submit, the settling of its holds, the edit decisions' look at the other work trees and the
 * `changes` view ask the same ones again and again: a git process each). Anything named otherwise (a branch, HEAD)
 * is asked every time; a failure is not kept. Only `git replace` could change such an answer, and coord never
 * writes one. Each caller gets its own copy.
 */
function once<T extends object>(repo: string, what: string, ids: (string | null)[], ask: () => Promise<T>): Promise<T> {
  if (!ids.every((id) => id !== null && COMMIT_ID.test(id))) return ask();
  const key = `${what}\0${repo}\0${ids.join('\0')}`;
  let answer = kept.get(key) as Promise<T> | undefined;
  if (!answer) {
    answer = ask();
    kept.set(key, answer);
    answer.catch(() => kept.delete(key));
    if (kept.size > KEPT_AT_MOST) kept.delete(kept.keys().next().value as string);
  }
  return answer.then((a) => structuredClone(a));
}

export async function mergeBase(repo: string, a: string, b: string): Promise<string | null> {
  const [base] = await once(repo, 'merge-base', [a, b], async () => {
    const run = await runGit(repo, ['merge-base', a, b], { ok: [1] });
    return run.code === 0 ? [run.stdout.trim()] : [];
  });
  return base ?? null;
}

/** `{ahead, behind}` of `head` against `target`. */
export async function aheadBehind(
  repo: string,
  target: string,
  head: string,
): Promise<{ ahead: number; behind: number }> {
  return once(repo, 'ahead-behind', [target, head], async () => {
    const run = await runGit(repo, ['rev-list', '--left-right', '--count', `${target}...${head}`]);
    const [behind, ahead] = run.stdout.trim().split(/\s+/).map(Number);
    return { ahead: ahead ?? 0, behind: behind ?? 0 };
  });
}

/** Paths that differ between two commits (`--no-renames`: a rename is its two paths). */
export async function changedPaths(repo: string, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  return once(repo, 'paths', [from, to], async () =>
    splitZ((await runGit(repo, ['diff', '--name-only', '-z', '--no-renames', from, to])).stdout),
  );
}

/**
 * The paths that differ between two commits with the lines added and removed (binary files count 0), from one
 * `git diff --numstat` (a change record wants both: one git process, not two).
 */
export async function diffStat(
  repo: string,
  from: string,
  to: string,
): Promise<{ paths: string[]; insertions: number; deletions: number }> {
  if (from === to) return { paths: [], insertions: 0, deletions: 0 };
  return once(repo, 'stat', [from, to], async () => {
    const run = await runGit(repo, ['diff', '--numstat', '-z', '--no-renames', from, to]);
    const paths: string[] = [];
    let insertions = 0;
    let deletions = 0;
    for (const rec of splitZ(run.stdout)) {
      const [add = '', del = '', ...path] = rec.split('\t');
      paths.push(path.join('\t'));
      insertions += Number(add) || 0;
      deletions += Number(del) || 0;
    }
    return { paths, insertions, deletions };
  });
}

/** Commits reachable from `to` but not from `from`, newest first, with their subjects. */
export async function commitsBetween(
  repo: string,
  from: string | null,
  to: string,
): Promise<{ sha: string; subject: string }[]> {
  const range = from ? [`${from}..${to}`] : [to];
  return once(repo, 'commits', from ? [from, to] : [to], async () => {
    const run = await runGit(repo, ['log', '-z', '--format=%H%x1f%s', ...range, '--']);
    return splitZ(run.stdout).map((rec) => {
      const [sha = '', subject = ''] = rec.split('\x1f');
      return { sha: sha.trim(), subject };
    });
  });
}

/** Does `name` name a local branch? */
export const branchExists = async (repo: string, name: string): Promise<boolean> =>
  (await branchTip(repo, name)) !== null;

/**
 * The work of the commits in `from..to` that are not in `exclude` (SPEC §15: a follow-up that merged the
 * target counts only its own commits): their paths — a merge's only where it differs from every parent,
 * i.e. its conflict resolutions — and the lines of the ordinary ones.
 */
export async function ownWork(
  repo: string,
  from: string,
  to: string,
  exclude: string,
): Promise<{ paths: string[]; insertions: number; deletions: number }> {
  const range = [`${from}..${to}`, `^${exclude}`];
  const [names, stats] = await Promise.all([
    runGit(repo, [
      'log',
      '-z',
      '--format=',
      '--name-only',
      '--no-renames',
      '--diff-merges=dense-combined',
      ...range,
      '--',
    ]),
    runGit(repo, ['log', '--format=', '--numstat', '--no-renames', '--no-merges', ...range, '--']),
  ]);
  let insertions = 0;
  let deletions = 0;
  for (const line of stats.stdout.split('\n')) {
    const [add, del] = line.split('\t');
    insertions += Number(add) || 0;
    deletions += Number(del) || 0;
  }
  const paths = [
    ...new Set(
      splitZ(names.stdout)
        .map((p) => p.replace(/^\n+/, ''))
        .filter((p) => p !== ''),
    ),
  ];
  return { paths, insertions, deletions };
}
