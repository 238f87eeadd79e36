import { describeBlocked } from '../board/blockers.js';
import { describeIntegration } from '../integration/describe-integration.js';
import type { IntegrationState } from '../integration/integration.js';
import type { Task } from '../model.js';
import type { Ctx } from '../operation.js';
import { defineOperation } from '../operation.js';
import { ListTasksOutput } from '../output-schemas.js';
import { ListTasksInput } from '../schemas.js';

export const listTasks = defineOperation({
  name: 'list_tasks',
  summary: 'List tasks, newest first; only those visible to `agent` when given.',
  input: ListTasksInput,
  output: ListTasksOutput,
  async run(ctx, input) {
    const { ready, blocked, integration, ...q } = input;
    if (integration !== undefined) return byIntegration(ctx, input, integration);
    // SPEC §11: ready and blocked each ask for queued tasks of one kind; both together, for every queued one.
    const page = await ctx.store.listTasks({
      ...q,
      ready: ready && !blocked ? true : blocked && !ready ? false : undefined,
      ...(ready && blocked ? { state: 'queued' as const } : {}),
      limit: input.limit ?? 100,
    });
    await describeBlocked(ctx.store, page.tasks);
    await describeIntegration(ctx.store, page.tasks);
    return page;
  },
});

/**
 * SPEC §15 `ls --integration STATE`: the queue's rows name the tasks (oldest first, one page); `none` is
 * every completed task without one, looked up among the newest completed tasks.
 */
async function byIntegration(ctx: Ctx, input: ListTasksInput, state: IntegrationState) {
  const limit = input.limit ?? 100;
  const base = { board: input.board, agent: input.agent, kind: input.kind, label: input.label };
  let tasks: Task[];
  if (state === 'none') {
    const page = await ctx.store.listTasks({ ...base, state: 'completed', limit });
    tasks = page.tasks;
  } else {
    const ids = await ctx.store.integrationTaskIds({ board: input.board, state, limit });
    const found = await Promise.all(ids.map((id) => ctx.store.getTask(id, input.agent)));
    tasks = found.filter((t): t is Task => t !== null);
  }
  await describeIntegration(ctx.store, tasks);
  return { tasks: tasks.filter((t) => t.integration?.state === state), next_cursor: null };
}
