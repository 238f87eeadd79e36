/**
 * Where `coord integrate` runs and what it merges into (SPEC §14's default target, until a board's
 * target is set): the repository around a directory, and the branch checked out in its main work tree,
 * else `main`, else `master`.
 */
import { runGit, splitZ } from './run-git.js';

/** The top of the work tree (or the bare repository) `dir` is in, or null outside any repository. */
export async function repositoryOf(dir: string): Promise<string | null> {
  const top = await runGit(dir, ['rev-parse', '--show-toplevel']).catch(() => null);
  if (top !== null && top.stdout.trim() !== '') return top.stdout.trim();
  const bare = await runGit(dir, ['rev-parse', '--is-bare-repository', '--absolute-git-dir']).catch(() => null);
  const [isBare, gitDir] = (bare?.stdout ?? '').trim().split('\n');
  return bare !== null && isBare === 'true' && gitDir ? gitDir : null;
}

/** The default target branch of a repository, or null when it has none of the candidates. */
export async function defaultTarget(repo: string): Promise<string | null> {
  const list = await runGit(repo, ['worktree', 'list', '--porcelain', '-z']);
  const fields = splitZ(list.stdout);
  // The first entry is the main work tree; its `branch` line names what it has checked out.
  const mainEnd = fields.findIndex((f, i) => i > 0 && f.startsWith('worktree '));
  const mainFields = fields.slice(0, mainEnd === -1 ? fields.length : mainEnd);
  const checked = mainFields.find((f) => f.startsWith('branch refs/heads/'));
  if (checked) return checked.slice('branch refs/heads/'.length);
  for (const name of ['main', 'master']) {
    const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { ok: [1] });
    if (run.code === 0) return name;
  }
  return null;
}
