/**
 * SPEC §14: the repository's work trees, who works in each, and what each
 * would bring into the board's integration target — with the paths pending in
 * two or more of them (overlaps: tomorrow's merge conflicts).
 */
import { z } from 'zod';
import { CoordError } from '../errors.js';
import { DEFAULT_BOARD } from '../model.js';
import type { Ctx } from '../operation.js';
import { defineOperation } from '../operation.js';
import { BoardName } from '../schemas.js';
import {
  ChangesOutput,
  MAX_LISTED_PATHS,
  SetTargetInput,
  SetTargetOutput,
  WorktreePath,
  WorktreesOutput,
} from '../worktrees/change-schemas.js';
import { ACTIVE_WINDOW_MS } from './agents.js';
import { recordPending, stampOf } from './pending-elsewhere.js';
import { explicitTree, tieBoard } from './worktree-context.js';

const ChangesQuery = z.object({
  board: BoardName.optional(),
  worktree: WorktreePath.optional().describe(
    'A work tree of the repository (the CLI sends the one it runs in): lets coord learn the repository.',
  ),
});

type Tree = z.output<typeof WorktreesOutput>['worktrees'][number];

/** How long an agent counts as working in a work tree after it was last seen there. */
const WORKING_MS = 3 * ACTIVE_WINDOW_MS;

async function pendingTrees(ctx: Ctx, board: string, worktree: string | undefined) {
  if (!ctx.git) throw new CoordError('git_failed', 'this coord daemon cannot run git, so it sees no changes');
  // The work tree a caller names teaches coord the repository; it is not an agent working there.
  if (worktree) await tieBoard(ctx, board, await explicitTree(ctx, board, worktree));
  const repo = await ctx.store.boardRepo(board);
  if (!repo) {
    throw new CoordError(
      'not_found',
      `board ${board} has no repository coord knows of yet — run coord changes inside the repository, or let an agent work there first`,
      { board },
    );
  }
  const git = ctx.git;
  const trees = (await git.worktrees(repo.repo)).filter((t) => !t.prunable);
  const now = ctx.clock.now();
  // Stamped before git looks (pending-elsewhere.ts): a commit meanwhile makes the next decision look again.
  const stamp = stampOf(
    git,
    repo.repo,
    repo.target,
    trees.map((t) => t.path),
  );
  const seen = await ctx.store.agentTrees(board, now - WORKING_MS);
  const claims = (await ctx.store.activity({ board, since_ms: WORKING_MS })).claims;
  const all = new Map<string, string[]>();
  const snapshot = new Map<string, { branch: string | null; paths: string[] }>();
  const out: Tree[] = await Promise.all(
    trees.map(async (t) => {
      // Asked outright: what git says now, not a look kept from a moment ago (the file just written counts).
      git.invalidate(t.path);
      const [p, counts] = await Promise.all([git.pending(t.path, repo.target), git.aheadBehind(t.path, repo.target)]);
      all.set(t.path, p.paths);
      snapshot.set(t.path, { branch: t.branch, paths: p.paths });
      const agents = seen.filter((s) => s.worktree === t.path).map((s) => s.agent);
      return {
        path: t.path,
        branch: t.branch,
        head: t.head,
        ...counts,
        agents,
        tasks: claims.filter((c) => agents.includes(c.agent)).map((c) => c.task_id),
        pending: p.paths.slice(0, MAX_LISTED_PATHS),
        pending_count: p.paths.length,
      };
    }),
  );
  // The edit decisions that follow read it (an unheld pending path elsewhere gives a warning line).
  recordPending(ctx, board, snapshot, now, stamp);
  return { target: repo.target, worktrees: out, all };
}

export const listWorktrees = defineOperation({
  name: 'list_worktrees',
  summary: "The repository's work trees: branch, head, who works in each, their claims and pending changes.",
  input: ChangesQuery,
  output: WorktreesOutput,
  async run(ctx, input) {
    const { target, worktrees } = await pendingTrees(ctx, input.board ?? DEFAULT_BOARD, input.worktree);
    return { target, worktrees };
  },
});

export const listChanges = defineOperation({
  name: 'list_changes',
  summary:
    'What each work tree would bring into the integration target (commits, staged, unstaged, untracked), and the paths pending in two or more.',
  input: ChangesQuery,
  output: ChangesOutput,
  async run(ctx, input) {
    const { target, worktrees, all } = await pendingTrees(ctx, input.board ?? DEFAULT_BOARD, input.worktree);
    const where = new Map<string, string[]>();
    for (const [tree, paths] of all) for (const p of paths) where.set(p, [...(where.get(p) ?? []), tree]);
    const overlaps = [...where]
      .filter(([, trees]) => trees.length > 1)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, MAX_LISTED_PATHS)
      .map(([path, trees]) => ({ path, worktrees: trees }));
    return { target, worktrees, overlaps };
  },
});

export const setTarget = defineOperation({
  name: 'set_target',
  summary: "Set the board's integration target: the branch its work is merged into.",
  input: SetTargetInput.extend({ worktree: WorktreePath.optional() }),
  output: SetTargetOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    if (!ctx.git) throw new CoordError('git_failed', 'this coord daemon cannot run git');
    const facts = input.worktree ? await explicitTree(ctx, board, input.worktree) : null;
    const known = await ctx.store.boardRepo(board);
    const repo = known?.repo ?? facts?.commonDir;
    if (!repo) {
      throw new CoordError(
        'not_found',
        `board ${board} has no repository coord knows of yet — run coord target inside the repository`,
        { board },
      );
    }
    if (!(await ctx.git.branchExists(repo, input.branch))) {
      throw new CoordError(
        'invalid_request',
        `there is no branch ${input.branch} in ${repo} — create it first, or name another`,
        {
          issues: [{ path: 'branch', message: 'no such branch' }],
        },
      );
    }
    const set = await ctx.store.setBoardRepo(
      { board, repo, target: input.branch },
      { replaceTarget: true, readyOn: input.ready_on },
    );
    ctx.git.invalidate();
    return { board, target: set.target, ready_on: set.ready_on ?? 'landed' };
  },
});
