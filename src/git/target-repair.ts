/**
 * SPEC §15 "The target's work tree is never left behind." The integrator moves the target ref and then
 * updates the work tree it is checked out in (`read-tree -m -u OLD NEW`). An integrator killed between
 * the two leaves that work tree's index and files at OLD while its branch names NEW: `git status` shows
 * the merged work as staged reversals, and a person's next commit there would revert it. So before
 * anything else, each turn (and so each daemon start) looks: a checked-out target whose index is the tree
 * of a tip coord moved the branch away from (its reflog says `coord: integrate`) is brought to the
 * branch's tip by the same two-tree checkout — which keeps a person's local changes and refuses to
 * overwrite any — or, when that refuses, reported `blocked` with nothing changed.
 */
import type { CoordError } from '../core/errors.js';
import { readRefs } from './read-refs.js';
import { runGit } from './run-git.js';

/** How many of coord's own moves of the target, newest first, are looked through for the stale tip. */
const LOOKED_BACK = 20;

export type TargetState =
  | { ok: true; repaired: { worktree: string; from: string; to: string } | null }
  | { ok: false; reason: string };

const git = (cwd: string, args: string[], ok: number[] = []) => runGit(cwd, args, { ok, deadlineMs: 60_000 });

export async function repairTarget(repo: string, target: string): Promise<TargetState> {
  const ref = `refs/heads/${target}`;
  const tip = (await readRefs(repo, [ref]))?.get(ref);
  const worktree = tip?.worktree ?? null;
  if (!tip || worktree === null) return { ok: true, repaired: null };
  // The common case, one process: the index is the tip's tree (staged nothing).
  if ((await git(worktree, ['diff-index', '--cached', '--quiet', tip.sha, '--'], [1])).code === 0)
    return { ok: true, repaired: null };
  const stale = await staleTip(worktree, ref, tip.sha);
  if (stale === null) return { ok: true, repaired: null };
  const refused = await git(worktree, ['read-tree', '-m', '-u', stale, tip.sha]).then(
    () => null,
    (e: CoordError) => String(e.details.stderr ?? e.message).trim(),
  );
  if (refused !== null)
    return {
      ok: false,
      reason: `${target} is checked out in ${worktree}, whose files were left at ${stale.slice(0, 7)} by an integrator that stopped after moving ${target} to ${tip.sha.slice(0, 7)}, and could not be brought up to date: ${refused}`,
    };
  return { ok: true, repaired: { worktree, from: stale, to: tip.sha } };
}

/** The tip coord moved `ref` away from whose tree the work tree's index still is, or null. */
async function staleTip(worktree: string, ref: string, tip: string): Promise<string | null> {
  const log = await git(worktree, ['log', '-g', `-n${LOOKED_BACK + 1}`, '--format=%H%x00%gs', ref, '--'], [128]);
  const entries = log.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [sha = '', subject = ''] = l.split('\0');
      return { sha, subject };
    });
  if (entries[0]?.sha !== tip) return null;
  // An index with unmerged entries has no tree: that is a person's merge in progress, not coord's leftover.
  const index = await git(worktree, ['write-tree'], [128]);
  if (index.code !== 0) return null;
  const indexTree = index.stdout.trim();
  for (let i = 0; i + 1 < entries.length && entries[i]?.subject.startsWith('coord: integrate'); i++) {
    const old = entries[i + 1]?.sha ?? '';
    const tree = await git(worktree, ['rev-parse', '--verify', '--quiet', `${old}^{tree}`], [1]);
    if (tree.stdout.trim() === indexTree) return old;
  }
  return null;
}
