/** SPEC §14 on the command line: `coord worktrees`, `coord changes`, `coord target BRANCH`. */
import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { changesText } from '../../core/worktrees/changes-text.js';
import { findRepoRoot } from '../../state-dir/board-name.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';
import { cwdTree } from './lock-paths.js';

export function registerChanges(program: Command): void {
  withCommon(
    program
      .command('worktrees')
      .description("The repository's work trees: branch, head, who works in each, their claims and pending changes"),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listWorktrees, { board: inv.board, ...cwdTree() });
      const res = await inv.client.call(operations.listWorktrees, input);
      emit(flags, res, () => changesText(res, findRepoRoot(process.cwd())));
    }),
  );

  withCommon(
    program
      .command('changes')
      .description(
        'What each work tree would bring into the integration target, and the paths pending in two or more (overlaps)',
      ),
    { agent: false },
  ).action(
    action(async (flags: CommonFlags) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.listChanges, { board: inv.board, ...cwdTree() });
      const res = await inv.client.call(operations.listChanges, input);
      emit(flags, res, () => changesText(res, findRepoRoot(process.cwd())));
    }),
  );

  withCommon(
    program
      .command('target')
      .description("Set the board's integration target: the branch its work is merged into")
      .argument('<branch>', 'an existing branch')
      .option(
        '--ready-on <rule>',
        'when a blocker counts: landed (completed and merged — the default) or completed (the old rule)',
      ),
    { agent: false },
  ).action(
    action(async (branch: string, flags: CommonFlags & { readyOn?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.setTarget, {
        board: inv.board,
        branch,
        ...cwdTree(),
        ...(flags.readyOn === undefined ? {} : { ready_on: flags.readyOn }),
      });
      const res = await inv.client.call(operations.setTarget, input);
      emit(
        flags,
        res,
        () =>
          `board ${res.board} now integrates into ${res.target}; a step is ready once its blockers ${res.ready_on === 'landed' ? 'are merged (or completed with no commits)' : 'are completed'}`,
      );
    }),
  );
}
