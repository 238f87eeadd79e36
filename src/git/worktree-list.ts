/** `git worktree list --porcelain -z`: every work tree of a repository, parsed in one place. */
import { runGit, splitZ } from './run-git.js';

export interface GitWorkTree {
  path: string;
  /** Short branch name; null when detached (or bare). */
  branch: string | null;
  head: string | null;
  bare: boolean;
  /** git says its folder is gone (`prunable`): its changes are no longer anyone's. */
  prunable: boolean;
}

/** Records are runs of `key value` fields, each run ended by an empty field. */
export function parseWorktreeList(out: string): GitWorkTree[] {
  const trees: GitWorkTree[] = [];
  let at: GitWorkTree | null = null;
  for (const field of out.split('\0')) {
    if (field === '') {
      if (at) trees.push(at);
      at = null;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? '' : field.slice(space + 1);
    if (key === 'worktree') at = { path: value, branch: null, head: null, bare: false, prunable: false };
    else if (!at) continue;
    else if (key === 'HEAD') at.head = value;
    else if (key === 'branch') at.branch = value.replace(/^refs\/heads\//, '');
    else if (key === 'bare') at.bare = true;
    else if (key === 'prunable') at.prunable = true;
  }
  if (at) trees.push(at);
  return trees;
}

export async function listWorktrees(anyTree: string): Promise<GitWorkTree[]> {
  const run = await runGit(anyTree, ['worktree', 'list', '--porcelain', '-z']);
  return parseWorktreeList(run.stdout);
}

export { splitZ };
