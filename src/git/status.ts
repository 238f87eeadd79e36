/**
 * What a work tree has not committed: `git status --porcelain=v2 -z` —
 * staged, unstaged, unmerged and untracked-not-ignored paths, each once.
 * Renames are reported as their two sides (`--no-renames`): both paths change.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { headOf, porcelainPath, type ShellLook } from '../core/edits/shell-edits.js';
import { changedPaths } from './branch.js';
import { lookOptions, withLookIndex } from './look-index.js';
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

/** At most this many changed files are looked at on disk per look (a generator that wrote 100,000 is cut here). */
const MAX_LOOK_ENTRIES = 20_000;

/**
 * SPEC §10 shell edits: what git says is changed in `tree`, each entry with its size, mtime, ctime and birth
 * (core/edits/shell-edits.ts compares two looks). `untracked: false` leaves untracked files out — walking every
 * folder for them is most of what a `git status` costs, and the look before a command can do without them.
 */
export async function shellLook(tree: string, untracked: boolean): Promise<ShellLook> {
  // On the daemon's copy of the tree's index, where git keeps its untracked cache (look-index.ts).
  const run = await withLookIndex(tree, (env) =>
    runGit(
      tree,
      [
        ...lookOptions(env),
        'status',
        '--porcelain=v2',
        '-z',
        `--untracked-files=${untracked ? 'all' : 'no'}`,
        '--no-renames',
        '--ignore-submodules=all',
        '--branch',
        // Only `# branch.oid` is read: no walk of the history to count commits ahead of and behind the upstream.
        '--no-ahead-behind',
      ],
      { env },
    ),
  );
  const listed: [string, string][] = [];
  let head: string | undefined;
  for (const rec of splitZ(run.stdout)) {
    head ??= headOf(rec) ?? undefined;
    const path = porcelainPath(rec);
    if (path !== null && listed.length < MAX_LOOK_ENTRIES) listed.push([path, rec.slice(0, 4)]);
  }
  const entries: ShellLook['entries'] = {};
  const stamps = await Promise.all(
    listed.map(async ([path, code]) => {
      const st = await lstat(join(tree, path)).catch(() => null);
      return st
        ? { stamp: `${code} ${st.size} ${st.mtimeMs}`, ctimeMs: st.ctimeMs, bornMs: st.birthtimeMs }
        : { stamp: `${code} gone`, ctimeMs: 0, bornMs: 0 };
    }),
  );
  listed.forEach(([path], i) => {
    const s = stamps[i];
    if (s) entries[path] = s;
  });
  return { takenAt: Date.now(), untracked, entries, head };
}

/**
 * SPEC §10: the paths a command that moved HEAD changed in HEAD's tree (`from` and `to` as `# branch.oid` says
 * them; from `(initial)`, every path of `to`).
 */
export async function headChanges(tree: string, from: string, to: string): Promise<string[]> {
  if (from === to || to === '(initial)') return [];
  if (from === '(initial)') return splitZ((await runGit(tree, ['ls-tree', '-r', '--name-only', '-z', to])).stdout);
  // The same question by ids as the change record's and the other work trees' looks ask next: asked once.
  return changedPaths(tree, from, to);
}
