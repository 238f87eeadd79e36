/**
 * The speculative window's landing (integrate-window.ts): the target moves once, by compare-and-swap from the
 * tip the chain was built on, to the longest green prefix — locally (and a checked-out work tree with it), or
 * with `--push` on the remote, which the local target then follows.
 */
import { dirtyTarget, updateWorktree } from './integrate-git.js';
import type { MergeOutcome, RemoteTarget } from './integrate-merge.js';
import type { WindowRequest, WindowResult } from './integrate-window.js';
import { readRefs } from './read-refs.js';
import { swapOnce } from './ref-swapper.js';
import { type Link, rebaseLinks } from './window-chain.js';

/** The target's tip the chain was built on, and the work tree it is checked out in. */
export type Tip = { sha: string; worktree: string | null };

/** The window's result with the links that land (rebased ones when the target moved meanwhile). */
export type Settle = (links: Link[], outcomeOf: (l: Link) => MergeOutcome) => WindowResult;
/** A landed link's outcome, the target's work tree updated (or null). */
export type MergedAs = (worktree: string | null) => (l: Link) => MergeOutcome;

/** The tip the chain is built on: the local target's, or (`--push`) the remote's, which the local one follows. */
export async function targetTip(req: WindowRequest, ref: string): Promise<Tip | { reason: string }> {
  if (req.remote) {
    const tip = await req.remote.tip();
    if ('reason' in tip) return tip;
    const behind = await req.remote.follow(tip.sha);
    return behind === null ? { sha: tip.sha, worktree: null } : { reason: behind };
  }
  const tip = (await readRefs(req.repo, [ref]))?.get(ref);
  return tip ?? { reason: `the target branch ${req.target} does not exist` };
}

/**
 * Moves the target from the tip the chain was built on to its green prefix's tip, by compare-and-swap, and
 * a checked-out target's work tree with it. In a lane, a target another lane moved only on files this
 * window does not change keeps the checks: the green links are merged again on its new tip (SPEC §15
 * "Lanes": those tasks share no path) and land without a second check.
 */
export async function land(
  req: WindowRequest,
  ref: string,
  tip: Tip,
  accepted: Link[],
  settle: Settle,
  merged: MergedAs,
): Promise<WindowResult | 'again'> {
  let from = tip;
  let links = accepted;
  if (req.lane) {
    const now = await targetTip(req, ref);
    if ('reason' in now) return 'again';
    if (now.sha !== tip.sha) {
      const rebased = await rebaseLinks(req, tip.sha, now.sha, accepted);
      if (rebased === null) return 'again';
      from = now;
      links = rebased;
    }
  }
  const newTip = links.at(-1)?.tip ?? from.sha;
  if (req.remote) return pushLinks(req, req.remote, ref, from.sha, newTip, links, settle, merged);
  const worktree = from.worktree;
  const dirty = await dirtyTarget(req.target, worktree);
  if (dirty !== null) return settle(links, () => ({ state: 'blocked', reason: dirty }));
  await req.beforeSwap?.();
  const message = links.at(-1)?.task.message ?? 'coord: integrate';
  const swapped = req.swapper
    ? await req.swapper.swap(req.repo, ref, newTip, from.sha)
    : await swapOnce(req.repo, ref, newTip, from.sha, message);
  if (!swapped) return 'again';
  const refused = worktree === null ? null : await updateWorktree(req, worktree, from.sha, newTip);
  if (refused !== null) return settle(links, () => ({ state: 'blocked', reason: refused }));
  return settle(links, merged(worktree));
}

/**
 * `--push`: the remote branch moves from `from` to `newTip` by a compare-and-swap push (integrate-remote.ts);
 * a remote that moved meanwhile is 'again', one that refuses for another reason (a hook, permissions) leaves
 * the green tasks `blocked` with git's line. The local target then follows (a checked-out one only clean).
 */
async function pushLinks(
  req: WindowRequest,
  remote: RemoteTarget,
  ref: string,
  from: string,
  newTip: string,
  links: Link[],
  settle: Settle,
  merged: MergedAs,
): Promise<WindowResult | 'again'> {
  // As one at a time: a dirty checked-out local target blocks before the remote moves (it could not follow).
  const local = (await readRefs(req.repo, [ref]))?.get(ref);
  const dirty = await dirtyTarget(req.target, local?.worktree || null);
  if (dirty !== null) return settle(links, () => ({ state: 'blocked', reason: dirty }));
  await req.beforeSwap?.();
  const pushed = await remote.push(newTip, from);
  if (!pushed.pushed) {
    if ('moved' in pushed) return 'again';
    return settle(links, () => ({ state: 'blocked', reason: pushed.reason }));
  }
  // A refusal to follow (the work tree got dirty meanwhile) is reported by the next turn's round.
  await remote.follow(newTip);
  return settle(links, merged(null));
}
