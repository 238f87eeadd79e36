/**
 * What a work tree has not committed: `git status --porcelain=v2 -z` —
 * staged, unstaged, unmerged and untracked-not-ignored paths, each once.
 * Renames are reported as their two sides (`--no-renames`): both paths change.
 */
import { runGit, splitZ } from './run-git.js';

export function parseStatus(out: string): string[] {
  const paths = new Set<string>();
  for (const rec of splitZ(out)) {
    const kind = rec[0];
    if (kind === '?') paths.add(rec.slice(2));
    else if (kind === '1') paths.add(field(rec, 8));
    else if (kind === 'u') paths.add(field(rec, 10));
    // '2' (renames) cannot appear with --no-renames; '#' headers and '!' ignored entries are not changes.
  }
  return [...paths];
}

/** The text after the n-th space: the path, which may itself hold spaces. */
function field(rec: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = rec.indexOf(' ', at) + 1;
  return rec.slice(at);
}

export async function uncommitted(tree: string): Promise<string[]> {
  const run = await runGit(tree, ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames']);
  return parseStatus(run.stdout);
}
