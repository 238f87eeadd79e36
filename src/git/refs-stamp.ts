/**
 * SPEC §14's warning line without git on the edit decision's path: a stamp of what a commit, a merge, a reset
 * or a new work tree changes in the git directories — each work tree's HEAD and index, the ref its HEAD names,
 * the target's ref, packed-refs and the list of linked work trees — from file stats alone (well under a
 * millisecond). Equal stamps: nothing was committed, merged or checked out since; the pending paths kept from
 * the last look still hold, bar uncommitted edits (refreshed in the background).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const statOf = (path: string): string => {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
};

/** The work tree's own git directory: `<tree>/.git`, or where its `.git` file points. */
function gitDirOf(tree: string): string {
  const dotGit = join(tree, '.git');
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (m?.[1]) return resolve(tree, m[1]);
  } catch {
    // a directory (the main work tree), or gone
  }
  return dotGit;
}

export function refsStamp(repo: string, trees: readonly string[], target: string): string {
  const parts = [
    statOf(join(repo, 'packed-refs')),
    statOf(join(repo, 'worktrees')),
    statOf(join(repo, 'refs/heads', target)),
  ];
  for (const tree of trees) {
    const gitDir = gitDirOf(tree);
    let head = '';
    try {
      head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    } catch {
      // gone: its stat says so
    }
    const ref = head.startsWith('ref: ') ? head.slice(5) : '';
    parts.push(tree, head, statOf(join(gitDir, 'index')), ref ? statOf(join(repo, ref)) : '-');
  }
  return parts.join('\n');
}
