/**
 * The daemon's own copy of a work tree's index, for its shell looks (status.ts shellLook). git keeps its
 * untracked cache (`core.untrackedCache`: the folders' mtimes and what they held, the index's UNTR extension)
 * only in an index it may write, and the daemon never writes an agent's index (GIT_OPTIONAL_LOCKS=0: its
 * `index.lock` would fail the agent's own `git add`). So a look runs on a copy (GIT_INDEX_FILE) in this
 * process's scratch folder, which git may write — the lock it takes is the copy's — and which is taken again
 * whenever the agent's index changed (its inode, size, mtime or ctime). With the cache, the look after a
 * command re-reads only the folders whose mtime changed (git 2.39 uses it for `--untracked-files=all` only
 * with `status.showUntrackedFiles=all`): measured in docs/hooks.md.
 *
 * Racy git: an entry whose file time is not older than the index's own mtime is re-read, never trusted by its
 * stat. The copy's mtime is set a second before the original's, so every entry git would re-read in the
 * original is re-read in the copy too. Looks of one work tree run one at a time: a copy taken again must not
 * be overwritten by a git still writing the older one.
 */
import { createHash } from 'node:crypto';
import { lstat, open, readFile, rename, utimes, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { scratchDir } from './git-shell.js';

interface Copy {
  /** The agent's index as it was when copied: `ino size mtime ctime`. */
  stamp: string;
  path: string;
}

/** At most this many work trees' copies are remembered (each ~80 bytes per tracked file on disk). */
const MAX_TREES = 64;

const copies = new Map<string, Copy>();
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `look` with the environment that points git at the tree's copy of its index (an empty one when the
 * tree's index cannot be found or copied: git's plain look, on the agent's index, read only), after any
 * look of the same tree still running.
 */
export function withLookIndex<T>(tree: string, look: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const prior = queues.get(tree) ?? Promise.resolve();
  const run = prior.then(
    () => copyOf(tree).then((env) => look(env)),
    () => copyOf(tree).then((env) => look(env)),
  );
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(tree, settled);
  void settled.then(() => {
    if (queues.get(tree) === settled) queues.delete(tree);
  });
  return run;
}

/** The copy's environment, taken again first when the agent's index changed; {} when there is none. */
async function copyOf(tree: string): Promise<Record<string, string>> {
  try {
    const index = await indexFile(tree);
    if (!index) return {};
    const fd = await open(index, 'r');
    let copy: Copy;
    try {
      const st = await fd.stat();
      const stamp = `${st.ino} ${st.size} ${st.mtimeMs} ${st.ctimeMs}`;
      const kept = copies.get(tree);
      if (kept?.stamp === stamp) return lookEnv(kept.path);
      // Read through the descriptor its stamp came from: git replaces an index by rename, never in place.
      const bytes = await readFile(fd);
      const path = join(scratchDir(), `index-${createHash('sha256').update(tree).digest('hex').slice(0, 16)}`);
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, bytes, { mode: 0o600 });
      const mtime = Math.floor(st.mtimeMs / 1000) - 1;
      await utimes(tmp, mtime, mtime);
      await rename(tmp, path);
      copy = { stamp, path };
    } finally {
      await fd.close();
    }
    copies.delete(tree);
    if (copies.size >= MAX_TREES) copies.delete(copies.keys().next().value as string);
    copies.set(tree, copy);
    return lookEnv(copy.path);
  } catch {
    copies.delete(tree);
    return {};
  }
}

function lookEnv(path: string): Record<string, string> {
  return { GIT_INDEX_FILE: path, GIT_OPTIONAL_LOCKS: '1' };
}

/** The work tree's index: `.git/index`, or `<gitdir>/index` where `.git` is a file naming the git folder. */
async function indexFile(tree: string): Promise<string | null> {
  if (process.env.GIT_INDEX_FILE || process.env.GIT_DIR) return null;
  const dotGit = join(tree, '.git');
  const st = await lstat(dotGit).catch(() => null);
  if (!st) return null;
  if (st.isDirectory()) return join(dotGit, 'index');
  if (!st.isFile()) return null;
  const m = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'));
  if (!m?.[1]) return null;
  const gitDir = m[1].trim();
  return join(isAbsolute(gitDir) ? gitDir : resolve(dirname(dotGit), gitDir), 'index');
}

/** The git options that keep and use the untracked cache in the copy (none without a copy). */
export function lookOptions(env: Record<string, string>): string[] {
  if (!env.GIT_INDEX_FILE) return [];
  return [
    '-c',
    'core.untrackedCache=true',
    '-c',
    'status.showUntrackedFiles=all',
    // A split index would write its shared part into the repository's git folder.
    '-c',
    'core.splitIndex=false',
  ];
}
