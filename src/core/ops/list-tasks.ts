import { defineOperation } from '../operation.js';
import { ListTasksInput, ListTasksOutput } from '../schemas.js';

export const listTasks = defineOperation({
  name: 'list_tasks',
  summary: 'List tasks, newest first; only those visible to `agent` when given.',
  input: ListTasksInput,
  output: ListTasksOutput,
  async run(ctx, input) {
    return ctx.store.listTasks({ ...input, limit: input.limit ?? 100 });
  },
});
