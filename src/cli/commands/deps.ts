import type { Command } from 'commander';
import { parseInput } from '../../core/invoke.js';
import type { Task } from '../../core/model.js';
import { operations } from '../../core/operations.js';
import { action, type CommonFlags, resolveInvocation, withCommon } from '../common.js';
import { emit } from '../output.js';

export function depsLine(t: Task): string {
  if (t.blocked_by.length === 0) return `#${t.id} waits for nothing${t.ready ? ' (ready)' : ''}`;
  if (t.blocked.length === 0) return `#${t.id} after ${t.blocked_by.map((id) => `#${id}`).join(', ')} — all completed`;
  return `#${t.id} waits for ${t.blocked.map((b) => `#${b.id} (${b.state})`).join(', ')}`;
}

export function registerDeps(program: Command): void {
  withCommon(
    program
      .command('deps')
      .description('Change what a queued task waits for (SPEC §11); a cycle is refused and nothing changes')
      .argument('<id>', 'task id')
      .option('--add <id...>', 'wait for these tasks too')
      .option('--remove <id...>', 'stop waiting for these'),
    { board: false },
  ).action(
    action(async (id: string, flags: CommonFlags & { add?: string[]; remove?: string[] }) => {
      const inv = resolveInvocation(flags);
      const input = parseInput(operations.setDeps, {
        task_id: id,
        agent: inv.agent,
        add: flags.add,
        remove: flags.remove,
      });
      const res = await inv.client.call(operations.setDeps, input);
      emit(flags, res, () => depsLine(res.task));
    }),
  );
}
