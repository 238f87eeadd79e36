import { describeBlocked } from '../board/blockers.js';
import { unwrap } from '../board/outcomes.js';
import { defineOperation } from '../operation.js';
import { TaskEnvelope } from '../output-schemas.js';
import { CancelInput } from '../schemas.js';

export const cancelTask = defineOperation({
  name: 'cancel_task',
  summary: 'Cancel a queued or claimed task; its holder is fenced off at once. Cancelling twice is fine.',
  input: CancelInput,
  output: TaskEnvelope,
  async run(ctx, input) {
    const outcome = await ctx.store.cancel({
      task_id: input.task_id,
      agent: input.agent,
      reason: input.reason ?? null,
      note: input.note === undefined ? null : { text: input.note },
    });
    const value = unwrap(outcome, input.task_id);
    ctx.presence.touch(input.agent, value.task.board, ctx.clock.now());
    await describeBlocked(ctx.store, [value.task]);
    return value;
  },
});
