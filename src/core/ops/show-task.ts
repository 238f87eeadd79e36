import { describeBlocked } from '../board/blockers.js';
import { CoordError } from '../errors.js';
import { describeIntegration } from '../integration/describe-integration.js';
import { defineOperation } from '../operation.js';
import { TaskEnvelope } from '../output-schemas.js';
import { ShowTaskInput } from '../schemas.js';
import { TASK_NOTES } from './notes.js';

export const showTask = defineOperation({
  name: 'show_task',
  summary: 'Show one task.',
  input: ShowTaskInput,
  output: TaskEnvelope,
  async run(ctx, input) {
    const task = await ctx.store.getTask(input.task_id, input.agent);
    if (!task) throw new CoordError('not_found', `#${input.task_id} does not exist (or is private to another agent)`);
    await describeBlocked(ctx.store, [task]);
    await describeIntegration(ctx.store, [task]);
    const { notes, count } = await ctx.store.taskNotes(task.id, TASK_NOTES);
    return { task: { ...task, notes, notes_count: count } };
  },
});
