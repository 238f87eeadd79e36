import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

export function registerCancel(program: Command): void {
  withCommon(
    program
      .command('cancel')
      .description('Cancel a queued or claimed task; its holder is fenced off at once')
      .argument('<id>', 'task id')
      .option('--reason <text>', 'why')
      .option('--note <text>', 'a note on the task'),
    { board: false },
  ).action(
    action(async (id: string, flags: CommonFlags & { reason?: string; note?: string }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.cancelTask, {
        task_id: id,
        agent: inv.agent,
        reason: flags.reason,
        note: flags.note,
      });
      const res = await inv.client.call(operations.cancelTask, input);
      emit(flags, res, () => `cancelled #${input.task_id}`);
    }),
  );
}
