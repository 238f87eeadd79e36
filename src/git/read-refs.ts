/**
 * Branch tips, and the work tree each branch is checked out in, for the integration queue (SPEC §15) —
 * read from the repository's files when it keeps refs as files (loose refs, then packed-refs; `HEAD` of
 * the main and each linked work tree), so a merge spends no git process on them. git writes each of
 * those files whole (a lock file renamed over it), so a read sees the old content or the new one.
 *
 * Anything outside the plain layout — a reftable repository, a main work tree set by `core.worktree`, a
 * branch that is a symbolic ref, relative work-tree paths, a file that does not parse — is read by
 * `git for-each-ref` instead, which is what the files stand in for. Either way a tip is only a hint: the
 * target moves only by compare-and-swap (integrate-merge.ts), which fails on a stale one.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { statOf } from './refs-stamp.js';
import { runGit } from './run-git.js';

export interface RefTip {
  sha: string;
  /** The work tree that has this branch checked out, or null. */
  worktree: string | null;
}

/** How a repository directory's refs are read: its common git dir, and the file whose presence says it is still one. */
interface Layout {
  common: string;
  /** This directory's own git dir: the common dir (main work tree, bare), or `worktrees/<id>` in it. */
  gitDir: string;
  /** The common dir (main work tree, bare repository), or a linked work tree's `.git` file. */
  marker: string;
  /** What the marker was when the layout was read: a folder's identity, or the `.git` file's text. */
  seen: string;
  /** The main work tree (null: bare). */
  mainTree: string | null;
}

/** Per repository directory; null: not the plain files layout, always ask git. At most LAYOUTS_KEPT. */
const layouts = new Map<string, Layout | null>();
const LAYOUTS_KEPT = 2000;

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw e;
  }
}

/** Not a layout this reader understands: let git read it. */
class Unreadable extends Error {}

async function layoutOf(repo: string): Promise<Layout | null> {
  const known = layouts.get(repo);
  if (known !== undefined) return known;
  const run = await runGit(repo, [
    'rev-parse',
    '--path-format=absolute',
    '--git-common-dir',
    '--absolute-git-dir',
    '--is-bare-repository',
  ]);
  const [commonDir = '', gitDir = '', bare = ''] = run.stdout.trim().split('\n');
  const common = realpathSync(commonDir);
  const ownGitDir = realpathSync(gitDir);
  const config = readText(join(common, 'config')) ?? '';
  let layout: Layout | null = null;
  const plain =
    !existsSync(join(common, 'reftable')) &&
    !/^\s*(refstorage|worktree|relativeworktrees)\s*=/im.test(config) &&
    (bare === 'true' || basename(common) === '.git');
  if (plain) {
    // A linked work tree's git dir names the `.git` file in its folder: gone with the folder.
    const linked = ownGitDir !== common ? readText(join(gitDir, 'gitdir'))?.trim() : common;
    if (linked !== undefined && isAbsolute(linked))
      layout = {
        common,
        gitDir: ownGitDir,
        marker: linked,
        seen: markerNow(linked) ?? '',
        mainTree: bare === 'true' ? null : dirname(common),
      };
  }
  if (layouts.size >= LAYOUTS_KEPT) layouts.delete(layouts.keys().next().value as string);
  layouts.set(repo, layout);
  return layout;
}

/**
 * The marker as it is now (null: gone). A folder is known by its identity (its times change with every git
 * command); a linked work tree's `.git` file by its text, which names its repository — a work tree made again
 * at the same path by another repository is another repository's.
 */
function markerNow(marker: string): string | null {
  const st = statSync(marker, { throwIfNoEntry: false });
  if (!st) return null;
  return st.isDirectory() ? `${st.dev}:${st.ino}` : (readText(marker) ?? null);
}

/** The layout read for `repo`, unless its marker changed since (then read again) or is gone (null). */
async function liveLayout(repo: string): Promise<Layout | null> {
  const layout = await layoutOf(repo).catch(() => null);
  if (layout === null) return null;
  const now = markerNow(layout.marker);
  if (now === layout.seen) return layout;
  layouts.delete(repo);
  return now === null ? null : layoutOf(repo).catch(() => null);
}

/** Which branch each work tree has checked out (`ref: refs/heads/x` in its HEAD): the branch → the work tree. */
function checkedOutBranches(layout: Layout): Map<string, string> {
  const { common } = layout;
  const checkedOut = new Map<string, string>();
  const headOf = (gitDir: string): string | null => {
    const head = readText(join(gitDir, 'HEAD'))?.trim() ?? '';
    return head.startsWith('ref: ') ? head.slice('ref: '.length) : null;
  };
  if (layout.mainTree !== null) {
    const ref = headOf(common);
    if (ref !== null) checkedOut.set(ref, layout.mainTree);
  }
  let linked: string[] = [];
  try {
    linked = readdirSync(join(common, 'worktrees'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  for (const id of linked) {
    const dir = join(common, 'worktrees', id);
    const ref = headOf(dir);
    const gitFile = readText(join(dir, 'gitdir'))?.trim();
    if (ref === null || gitFile === undefined) continue;
    if (!isAbsolute(gitFile) || basename(gitFile) !== '.git')
      throw new Unreadable(`worktrees/${id}/gitdir: ${gitFile}`);
    if (!checkedOut.has(ref)) checkedOut.set(ref, dirname(gitFile));
  }
  return checkedOut;
}

/**
 * A repository's packed-refs, parsed once while the file stays the same (git replaces it whole, by a rename):
 * in a repository with many refs it is a large file, read on every look at a packed branch otherwise.
 */
const packedFiles = new Map<string, { stamp: string; refs: Map<string, string> }>();

function packedRefs(common: string): Map<string, string> {
  const path = join(common, 'packed-refs');
  const stamp = statOf(path);
  if (stamp === '-') {
    packedFiles.delete(path);
    return new Map();
  }
  const kept = packedFiles.get(path);
  if (kept?.stamp === stamp) return kept.refs;
  const refs = new Map<string, string>();
  for (const line of (readText(path) ?? '').split('\n')) {
    if (line.startsWith('#') || line.startsWith('^') || line === '') continue;
    const [sha = '', ref = ''] = line.split(' ');
    if (!SHA.test(sha)) throw new Unreadable(`packed-refs: ${line}`);
    refs.set(ref, sha);
  }
  if (packedFiles.size > 64) packedFiles.clear();
  packedFiles.set(path, { stamp, refs });
  return refs;
}

function fromFiles(layout: Layout, names: string[], trees = true): Map<string, RefTip> {
  const { common } = layout;
  let packed: Map<string, string> | undefined;
  const packedRef = (name: string) => {
    packed ??= packedRefs(common);
    return packed.get(name);
  };
  const checkedOut = trees ? checkedOutBranches(layout) : new Map<string, string>();
  const refs = new Map<string, RefTip>();
  for (const name of names) {
    const loose = readText(join(common, name))?.trim();
    const sha = loose === undefined ? packedRef(name) : loose;
    if (sha === undefined) continue;
    if (!SHA.test(sha)) throw new Unreadable(`${name}: ${sha}`);
    refs.set(name, { sha, worktree: checkedOut.get(name) ?? null });
  }
  return refs;
}

/** The same answer from git (`for-each-ref`'s %(worktreepath)); null when git cannot read the repository. */
async function fromGit(repo: string, names: string[]): Promise<Map<string, RefTip> | null> {
  const run = await runGit(repo, [
    'for-each-ref',
    '--format=%(refname)%00%(objectname)%00%(worktreepath)',
    ...names,
  ]).catch(() => null);
  if (run === null) return null;
  const refs = new Map<string, RefTip>();
  for (const line of run.stdout.split('\n')) {
    const [name = '', sha = '', worktree = ''] = line.split('\0');
    // A pattern also matches refs below it (refs/heads/main/x): keep the exact names only.
    if (names.includes(name)) refs.set(name, { sha, worktree: worktree === '' ? null : worktree });
  }
  return refs;
}

/**
 * A branch's commit read from the repository's files, with no git process: null when the branch does not
 * exist, undefined when the files cannot say (not the plain layout, a symbolic ref, a read error) — ask git.
 */
export async function tipFromFiles(repo: string, branch: string): Promise<string | null | undefined> {
  // Only a plain name is a file path below refs/heads/; anything else (`..`, odd characters) is git's to judge.
  if (!/^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(branch) || /\.\.|\/\/|\/\.|\.lock(\/|$)|\/$/.test(branch))
    return undefined;
  const layout = await liveLayout(repo);
  if (layout === null) return undefined;
  try {
    return fromFiles(layout, [`refs/heads/${branch}`], false).get(`refs/heads/${branch}`)?.sha ?? null;
  } catch {
    return undefined;
  }
}

/**
 * The named refs (`refs/heads/…`) that exist, each with its commit and the work tree it is checked out in;
 * null when the directory is not a readable git repository (any more).
 */
export async function readRefs(repo: string, names: string[]): Promise<Map<string, RefTip> | null> {
  const layout = await liveLayout(repo);
  if (layout !== null) {
    try {
      return fromFiles(layout, names);
    } catch {
      // Not what this reader expects (or a read error): git answers below.
    }
  }
  return fromGit(repo, names);
}

/** What `git rev-parse --show-toplevel --git-common-dir HEAD` and HEAD's branch say of a work tree's top folder. */
export interface TreeHead {
  root: string;
  commonDir: string;
  head: string;
  branch: string | null;
}

/**
 * A work tree's top folder, common dir, HEAD and branch read from its files (its git dir's `HEAD`, then the
 * branch's loose ref or packed-refs), with no git process: a submit, an edit's look at the other work trees
 * and a claim told its tree each ask, and a linked tree's HEAD moves with every commit in it. undefined —
 * ask git — for anything else: a folder inside a work tree, a bare or non-plain repository, an unborn
 * branch, HEAD naming something other than a branch or a commit, a file that does not parse. git writes
 * HEAD and a ref whole (a lock file renamed over it), so a read sees the old commit or the new one, as
 * `git rev-parse` racing the same commit would.
 */
export async function treeFromFiles(dir: string): Promise<TreeHead | undefined> {
  if (!statSync(join(dir, '.git'), { throwIfNoEntry: false })) return undefined;
  const layout = await liveLayout(dir);
  if (layout === null || layout.mainTree === null) return undefined;
  try {
    // The main work tree's marker is the common dir; a linked one's is its `.git` file.
    const root = layout.marker === layout.common ? layout.mainTree : dirname(layout.marker);
    if (root !== realpathSync(dir)) return undefined;
    const head = readText(join(layout.gitDir, 'HEAD'))?.trim() ?? '';
    if (SHA.test(head)) return { root, commonDir: layout.common, head, branch: null };
    if (!head.startsWith('ref: refs/heads/')) return undefined;
    const ref = head.slice('ref: '.length);
    const sha = fromFiles(layout, [ref], false).get(ref)?.sha;
    return sha === undefined
      ? undefined
      : { root, commonDir: layout.common, head: sha, branch: ref.slice('refs/heads/'.length) };
  } catch {
    return undefined;
  }
}
