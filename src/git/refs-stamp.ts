/**
 * SPEC §14's warning line without git on the edit decision's path: a stamp of what a commit, a merge, a reset
 * or a new work tree changes in the git directories — each work tree's HEAD and index, the ref its HEAD names,
 * the target's ref, packed-refs and the list of linked work trees — from file stats alone (tens of
 * microseconds: no file is read and no exception thrown while nothing moved). Equal stamps: nothing was
 * committed, merged or checked out since; the pending paths kept from the last look still hold, bar
 * uncommitted edits (refreshed in the background).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A file's identity and last change (`-`: none): what tells a file git rewrote (always by a rename) from the one before. */
export const statOf = (path: string): string => {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-';
  } catch {
    return '-';
  }
};

/** The work tree's own git directory: `<tree>/.git`, or where its `.git` file points. */
function gitDirOf(tree: string): string {
  const dotGit = join(tree, '.git');
  const st = statSync(dotGit, { throwIfNoEntry: false });
  if (st?.isFile()) {
    try {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
      if (m?.[1]) return resolve(tree, m[1]);
    } catch {
      // gone meanwhile: its stat says so
    }
  }
  return dotGit;
}

/**
 * What the stamp reads rather than stats, kept per repository while its list of linked work trees stays as it
 * was (adding or removing one changes the `worktrees` folder, which empties this): each tree's git directory,
 * and each HEAD's text while the HEAD file's stat is unchanged (git rewrites it by rename).
 */
interface Seen {
  worktrees: string;
  gitDirs: Map<string, string>;
  heads: Map<string, { stat: string; text: string }>;
}
const seen = new Map<string, Seen>();

function headOf(s: Seen, gitDir: string): { stat: string; text: string } {
  const path = join(gitDir, 'HEAD');
  const stat = statOf(path);
  const was = s.heads.get(gitDir);
  if (was && was.stat === stat && stat !== '-') return was;
  let text = '';
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    // gone: its stat says so
  }
  const now = { stat, text };
  s.heads.set(gitDir, now);
  return now;
}

/**
 * `shared: false` leaves out what every tree shares (packed-refs, the list of work trees, the target's ref): the
 * trees' own files only. `list: false` leaves out the list alone (what a tree would bring does not depend on it).
 */
export function refsStamp(
  repo: string,
  trees: readonly string[],
  target: string,
  o: { shared?: boolean; list?: boolean } = {},
): string {
  const worktrees = statOf(join(repo, 'worktrees'));
  let s = seen.get(repo);
  if (!s || s.worktrees !== worktrees) {
    s = { worktrees, gitDirs: new Map(), heads: new Map() };
    seen.set(repo, s);
  }
  const parts =
    o.shared === false
      ? []
      : [
          statOf(join(repo, 'packed-refs')),
          o.list === false ? '' : worktrees,
          statOf(join(repo, 'refs/heads', target)),
        ];
  for (const tree of trees) {
    let gitDir = s.gitDirs.get(tree);
    if (gitDir === undefined) {
      gitDir = gitDirOf(tree);
      s.gitDirs.set(tree, gitDir);
    }
    const head = headOf(s, gitDir);
    const ref = head.text.startsWith('ref: ') ? head.text.slice(5) : '';
    parts.push(tree, head.stat, head.text, statOf(join(gitDir, 'index')), ref ? statOf(join(repo, ref)) : '-');
  }
  return parts.join('\n');
}
