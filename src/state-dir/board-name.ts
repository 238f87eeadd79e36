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
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type EditRequest, editRequests, type LocatedPath } from '../core/edits/edit-request.js';
import { sha256Hex } from '../core/shared/sha256.js';

export interface WorkTree {
  /** The top folder of the work tree the directory is in: lock paths are relative to it. */
  root: string;
  /** The repository's common git directory, shared by all its work trees. */
  commonDir: string;
  /** What names the board: the main work tree, or the bare repository's folder. */
  home: string;
}

/**
 * The repository's other work trees than `tree` (their top folders), read from the git directory's own files
 * — the main work tree, and `worktrees/*\/gitdir` — with no git run: a hook can afford it on every call.
 */
export function otherWorkTrees(tree: WorkTree): string[] {
  const out = new Set<string>();
  if (basename(tree.commonDir) === '.git') out.add(dirname(tree.commonDir));
  let names: string[] = [];
  try {
    names = readdirSync(join(tree.commonDir, 'worktrees'));
  } catch {
    // no linked work trees
  }
  for (const name of names) {
    try {
      const dotGit = readFileSync(join(tree.commonDir, 'worktrees', name, 'gitdir'), 'utf8').trim();
      if (dotGit) out.add(dirname(dotGit));
    } catch {
      // a half-removed work tree
    }
  }
  out.delete(tree.root);
  return [...out].filter((root) => existsSync(join(root, '.git')));
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
  return `${name}-${sha256Hex(home).slice(0, 6)}`;
}

/** The board for work done in `dir`: its repository's, else null. */
export function boardForDir(dir: string): string | null {
  const tree = findWorkTree(dir);
  return tree ? boardForRepo(tree.home) : null;
}

/** A path's lock key: relative to the root of the work tree it is in, with `/` separators. */
export interface TreePath {
  tree: WorkTree;
  board: string;
  key: string;
}

/**
 * Where an absolute path lives (SPEC §10, one file, one key): the file it
 * really is — symlinks followed, the link's own folder ignored, so a link
 * placed outside any repository, in another one or in a submodule names its
 * target's repository — then the innermost work tree holding that file and
 * the key relative to its root: Unicode NFC, case folded where the file
 * system folds case. A submodule or a repository nested in another is its own
 * repository and board (SPEC §5: one repository, one board), whichever folder
 * the agent sits in. Hard links are separate names and are not followed.
 * Null outside every repository: not coord's to guard.
 */
export function locatePath(path: string): TreePath | null {
  const real = realPath(path);
  const tree = findWorkTree(entryKind(real) === 'dir' ? real : dirname(real));
  if (!tree) return null;
  const rel = relative(tree.root, real);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  const dir = /[\\/]$/.test(path) && rel !== '' ? '/' : '';
  return { tree, board: boardForRepo(tree.home), key: fileKey(tree.root, (rel.split(sep).join('/') || '.') + dir) };
}

/**
 * SPEC §10, §14: an edit's paths as the requests every door asks the daemon (core/edits/edit-request.ts) — the command
 * hooks, the plugins (the same hooks in process) and the `decide_edit` MCP tool. Each path (a relative one from
 * `base`) is located in both spellings: as spelt (`..` after a symlinked folder climbs from its target, as the OS
 * reads it) and lexically resolved (as clients that normalise paths read it) — both keys are decided. The agent's
 * session works in `sessionDir`'s work tree (null: none); `board` fixes every path's board ($COORD_BOARD).
 */
export function editRequestsOf(
  paths: readonly string[],
  base: string,
  sessionDir: string | null,
  board?: string | undefined,
): EditRequest[] {
  const located: LocatedPath[] = [];
  for (const p of paths)
    for (const abs of [isAbsolute(p) ? p : `${base}/${p}`, resolve(base, p)]) {
      const at = locatePath(abs);
      if (at) located.push({ board: at.board, tree: at.tree.root, key: at.key });
    }
  return editRequests(located, sessionDir === null ? null : (findWorkTree(sessionDir)?.root ?? null), board);
}

/** A key as the file system sees it: NFC always (one spelling per name), lower case where case is folded. */
function fileKey(root: string, key: string): string {
  const nfc = key.normalize('NFC');
  return foldsCase(root) ? nfc.toLowerCase() : nfc;
}

const caseFolding = new Map<string, boolean>();

/**
 * Whether the file system holding `root` treats `A` and `a` as one name
 * (macOS and Windows by default, ext4 casefold folders): `.git` and `.GIT`
 * both resolving to the same entry says so. Asked once per work tree.
 */
export function foldsCase(root: string): boolean {
  let folds = caseFolding.get(root);
  if (folds === undefined) {
    folds = sameEntry(join(root, '.git'), join(root, '.GIT'));
    caseFolding.set(root, folds);
  }
  return folds;
}

function sameEntry(a: string, b: string): boolean {
  try {
    const x = lstatSync(a);
    const y = lstatSync(b);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

/**
 * The path as the operating system would follow it: component by component,
 * every symlink resolved where it stands — the last component too, and a link
 * whose target does not exist yet (writing through it creates the target) —
 * and `..` taken from the real folder it follows, not from the spelling. The
 * part that does not exist yet is appended as spelt.
 */
export function realPath(path: string): string {
  let at = '/';
  const todo = path.split(/[\\/]+/).filter((c) => c !== '' && c !== '.');
  if (!path.startsWith('/')) todo.unshift(...process.cwd().split('/').filter(Boolean));
  let hops = 0;
  let missing = false;
  while (todo.length > 0) {
    const c = todo.shift() as string;
    if (c === '.') continue;
    if (c === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, c);
    if (!missing) {
      const st = lstatOrNone(next);
      if (!st) missing = true;
      if (st?.isSymbolicLink() && hops++ < 40) {
        const target = readlinkSync(next);
        todo.unshift(...target.split('/').filter((t) => t !== ''));
        if (target.startsWith('/')) at = '/';
        continue;
      }
    }
    at = next;
  }
  return at;
}

function entryKind(path: string): 'dir' | 'file' | 'none' {
  const st = lstatOrNone(path);
  return st ? (st.isDirectory() ? 'dir' : 'file') : 'none';
}

/** lstat, or undefined: no such entry (made without an Error, which costs more than the call), or not ours. */
function lstatOrNone(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
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
  const file = join(gitDir, 'commondir');
  // Most git dirs have none (a main work tree's .git): asked first, without the Error a failed read costs.
  if (entryKind(file) === 'none') return gitDir;
  try {
    return resolve(gitDir, readFileSync(file, 'utf8').trim() || '.');
  } catch {
    return gitDir;
  }
}

/** The path with symlinks resolved (git writes physical paths), or as given when it does not exist. */
function physical(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** Where a path given by an agent working at `root` is keyed (SPEC §5, §10). */
export type Placed =
  /** In `root`'s repository (any of its work trees): the key. */
  | { kind: 'here'; key: string }
  /** In another repository — a submodule, a nested repository, or a link into another one: its own board. */
  | { kind: 'elsewhere'; at: TreePath }
  /** In no repository, or (outside any repository) not under `root`. */
  | { kind: 'outside' };

/**
 * Where absolute path `abs` is keyed for an agent working at `root`: relative
 * to the root of the work tree it really is in, when that tree belongs to the
 * same repository as `root` — so `src/a.ts` in two worktrees is one resource;
 * another repository's file is that repository's (its board, its key), never
 * `root`'s under a longer name. Outside every repository, paths are relative
 * to `root` when inside it (a folder with no git at all).
 */
export function placePath(abs: string, root: string): Placed {
  const there = locatePath(abs);
  const here = findWorkTree(root);
  if (there && here) {
    return there.tree.commonDir === here.commonDir
      ? { kind: 'here', key: there.key }
      : { kind: 'elsewhere', at: there };
  }
  if (there) return { kind: 'elsewhere', at: there };
  if (here) return { kind: 'outside' };
  const rel = relative(physical(root), realPath(abs));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return { kind: 'outside' };
  const dir = /[\\/]$/.test(abs) && rel !== '' ? '/' : '';
  return { kind: 'here', key: ((rel.split(sep).join('/') || '.') + dir).normalize('NFC') };
}

/** The lock key of `abs` for an agent at `root` when it is in `root`'s repository (placePath), else null. */
export function treeRelative(abs: string, root: string): string | null {
  const placed = placePath(abs, root);
  return placed.kind === 'here' ? placed.key : null;
}
