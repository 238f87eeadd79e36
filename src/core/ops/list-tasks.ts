import { describeBlocked } from '../blockers.js';
import { defineOperation } from '../operation.js';
import { ListTasksInput, ListTasksOutput } from '../schemas.js';

export const listTasks = defineOperation({
  name: 'list_tasks',
  summary: 'List tasks, newest first; only those visible to `agent` when given.',
  input: ListTasksInput,
  output: ListTasksOutput,
  async run(ctx, input) {
    const { ready, blocked, ...q } = input;
    // SPEC §11: ready and blocked each ask for queued tasks of one kind; both together, for every queued one.
    const page = await ctx.store.listTasks({
      ...q,
      ready: ready && !blocked ? true : blocked && !ready ? false : undefined,
      ...(ready && blocked ? { state: 'queued' as const } : {}),
      limit: input.limit ?? 100,
    });
    await describeBlocked(ctx.store, page.tasks);
    return page;
  },
});
