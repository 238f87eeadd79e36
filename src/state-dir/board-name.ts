/**
 * SPEC §5: one board per repository, whatever work tree an agent sits in.
 * The board is named after the repository's *main* work tree — the folder
 * holding the common `.git` directory — so every linked work tree (`git
 * worktree add`, Claude Code `--worktree`, Codex and Cursor worktrees) shares
 * it, and the main work tree keeps the name it always had. Found by reading
 * git's own files (a linked tree's `.git` file names its git dir, whose
 * `commondir` names the shared one), not by running git: a hook runs this on
 * every edit.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface WorkTree {
  /** The top folder of the work tree the directory is in: lock paths are relative to it. */
  root: string;
  /** The repository's common git directory, shared by all its work trees. */
  commonDir: string;
  /** What names the board: the main work tree, or the bare repository's folder. */
  home: string;
}

/** The work tree containing `dir` (walking up to a `.git` entry), with its repository; null outside any. */
export function findWorkTree(dir: string): WorkTree | null {
  let at = physical(dir);
  for (;;) {
    const dotGit = join(at, '.git');
    const kind = entryKind(dotGit);
    if (kind === 'dir') return { root: at, commonDir: commonDirOf(dotGit), home: at };
    if (kind === 'file') {
      const gitDir = gitDirFromFile(dotGit);
      if (gitDir !== null) {
        const commonDir = commonDirOf(gitDir);
        // `<main>/.git` → the main work tree; a bare repository's own folder otherwise (`repo.git`).
        const home = basename(commonDir) === '.git' ? dirname(commonDir) : commonDir;
        // Without a commondir (a submodule, --separate-git-dir) the work tree is its repository's only one.
        return { root: at, commonDir, home: commonDir === gitDir ? at : home };
      }
    }
    const parent = dirname(at);
    if (parent === at) return null;
    at = parent;
  }
}

/** The git work tree containing `cwd`; null outside any repository. */
export function findRepoRoot(cwd: string): string | null {
  return findWorkTree(cwd)?.root ?? null;
}

/**
 * The board of a repository: its main work tree's folder name plus a short
 * hash of that folder's path — two agents in one repo share a board, two
 * repos never collide. (The formula is the one a main work tree always had.)
 */
export function boardForRepo(home: string): string {
  const name =
    basename(home)
      .replace(/[^A-Za-z0-9._-]/g, '-')
      .slice(0, 48) || 'repo';
  return `${name}-${createHash('sha256').update(home).digest('hex').slice(0, 6)}`;
}

/** The board for work done in `dir`: its repository's, else null. */
export function boardForDir(dir: string): string | null {
  const tree = findWorkTree(dir);
  return tree ? boardForRepo(tree.home) : null;
}

export function resolveBoard(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  if (flag) return flag;
  if (env.COORD_BOARD) return env.COORD_BOARD;
  return boardForDir(cwd) ?? 'default';
}

/** A path's lock key: relative to the root of the work tree it is in, with `/` separators. */
export interface TreePath {
  tree: WorkTree;
  board: string;
  key: string;
}

/**
 * Where an absolute path lives: the work tree holding it (found from the path's
 * nearest existing folder, since a file about to be created does not exist yet)
 * and its key relative to that tree's root. Null outside any repository.
 */
export function locatePath(path: string): TreePath | null {
  const abs = resolve(path);
  let probe = abs;
  while (entryKind(probe) === 'none' && dirname(probe) !== probe) probe = dirname(probe);
  const tree = findWorkTree(entryKind(probe) === 'dir' ? probe : dirname(probe));
  if (!tree) return null;
  // The tree was found through the physical path; make the key from the same spelling.
  const rel = relative(tree.root, physicalJoin(abs));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  const dir = /[\\/]$/.test(path) && rel !== '' ? '/' : '';
  return { tree, board: boardForRepo(tree.home), key: (rel.split(sep).join('/') || '.') + dir };
}

type EntryKind = 'dir' | 'file' | 'none';

function entryKind(path: string): EntryKind {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return 'none';
  }
}

/** `gitdir: <path>` in a linked work tree's (or submodule's) `.git` file. */
function gitDirFromFile(dotGit: string): string | null {
  let text: string;
  try {
    text = readFileSync(dotGit, 'utf8');
  } catch {
    return null;
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m?.[1] ? resolve(dirname(dotGit), m[1]) : null;
}

/** A git dir's `commondir` file points at the shared directory; without one, the git dir is its own. */
function commonDirOf(gitDir: string): string {
  try {
    const rel = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    if (rel) return resolve(gitDir, rel);
  } catch {
    // no commondir: a main work tree's .git, or a submodule's own git dir
  }
  return gitDir;
}

/** The path with symlinks resolved (git writes physical paths), or as given when it does not exist. */
function physical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * The lock key of absolute path `abs` for an agent working at `root` (SPEC §5):
 * relative to the root of the work tree `abs` is in, when that tree belongs
 * to the same repository as `root` — so `src/a.ts` in two worktrees is one
 * resource — else relative to `root` when inside it; null when outside both.
 */
export function treeRelative(abs: string, root: string): string | null {
  const there = locatePath(abs);
  const here = findWorkTree(root);
  if (there && here && there.tree.commonDir === here.commonDir) return there.key;
  const base = here?.root ?? physical(root);
  const probe = physicalJoin(abs);
  const rel = relative(base, probe);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  const dir = /[\\/]$/.test(abs) && rel !== '' ? '/' : '';
  return (rel.split(sep).join('/') || '.') + dir;
}

/** `abs` with its nearest existing ancestor's symlinks resolved. */
function physicalJoin(abs: string): string {
  let probe = resolve(abs);
  while (entryKind(probe) === 'none' && dirname(probe) !== probe) probe = dirname(probe);
  return join(physical(probe), relative(probe, resolve(abs)));
}
