import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import type { Task } from '../../core/model.js';
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
      const res = await inv.client.request<{ task: Task }>('POST', `/v1/tasks/${input.task_id}/cancel`, {
        agent: input.agent,
        reason: input.reason,
        note: input.note,
      });
      emit(flags, res.body, () => `cancelled #${input.task_id}`);
    }),
  );
}
