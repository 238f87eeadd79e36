/**
 * SPEC §14, who works where: an operation that names the caller's work tree
 * checks it with git, ties the board to its repository (first sight fixes the
 * integration target) and records where the agent works.
 */

import { CoordError } from '../errors.js';
import type { Ctx } from '../operation.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';
import type { WorkTreeFacts } from '../worktrees/git-port.js';

export async function trackTree(
  ctx: Ctx,
  board: string,
  agent: string,
  worktree: string | undefined | Promise<WorkTreeFacts | null>,
): Promise<WorkTreeFacts | null> {
  if (!worktree || !ctx.git) return null;
  // Work outside any repository, or in another repository than the board's (a board named by hand), is
  // coordinated as before — by locks alone; only the board's own work trees have changes coord can see.
  // (A caller that started git's look already passes it: a promise of the facts.)
  const facts = await (typeof worktree === 'string' ? ctx.git.locate(worktree) : worktree).catch(() => null);
  if (!facts || !(await tieBoard(ctx, board, facts))) return null;
  // What was last recorded per board and agent (the daemon's memory): a write only when something moved.
  const seen = ctx.presence.trees;
  const key = `${board}\0${agent}`;
  const value = `${facts.root}\0${facts.branch}\0${facts.head}`;
  if (seen.get(key) !== value) {
    await ctx.store.seenIn(board, { agent, worktree: facts.root, branch: facts.branch, head: facts.head });
    seen.set(key, value);
  }
  return facts;
}

/**
 * The board's repository is the one of `facts` (first sight fixes it and its integration target); false when
 * the board already belongs to another repository.
 */
export async function tieBoard(ctx: Ctx, board: string, facts: WorkTreeFacts): Promise<boolean> {
  const repo = await ctx.store.boardRepo(board);
  if (repo) return repo.repo === facts.commonDir;
  if (!ctx.git) return false;
  const target = await ctx.git.defaultTarget(facts.commonDir);
  await ctx.store.setBoardRepo({ board, repo: facts.commonDir, target }, { replaceTarget: false });
  return true;
}

/**
 * A work tree a caller named explicitly (`coord changes --worktree`, HTTP): it must be a work tree of the
 * board's repository, or the answer says why.
 */
export async function explicitTree(ctx: Ctx, board: string, worktree: string): Promise<WorkTreeFacts> {
  const facts = ctx.git ? await ctx.git.locate(worktree) : null;
  if (!facts) {
    throw new CoordError('invalid_request', `${worktree} is not inside a git work tree — give a work tree's path`, {
      worktree,
    });
  }
  const repo = await ctx.store.boardRepo(board);
  if (repo && repo.repo !== facts.commonDir) {
    throw new CoordError(
      'invalid_request',
      `${facts.root} is outside the repository of board ${board} (${repo.repo}) — use one of its work trees (coord worktrees), or that repository's board`,
      { worktree: facts.root, repo: repo.repo },
    );
  }
  return facts;
}

/** A note coord writes itself (a forced hold end, work left behind): idempotent on its text. */
export async function coordNote(ctx: Ctx, task_id: string, agent: string, text: string): Promise<void> {
  const payload = { task_id, agent, text };
  await ctx.store.addNote({
    ...payload,
    idempotency_key: `coord:${sha256Hex(canonicalJson(payload)).slice(0, 32)}`,
    payload_hash: sha256Hex(canonicalJson(payload)),
  });
}
