import { describeBlocked } from '../board/blockers.js';
import { unwrap } from '../board/outcomes.js';
import { SetDepsInput } from '../board/plan-schemas.js';
import { CoordError } from '../errors.js';
import { defineOperation } from '../operation.js';
import { TaskEnvelope } from '../output-schemas.js';

export const setDeps = defineOperation({
  name: 'set_deps',
  summary:
    'Add or remove blockers of a queued task: it is claimable only once every blocker completed. A cycle is refused (dependency_cycle); a refused request changes nothing.',
  input: SetDepsInput,
  output: TaskEnvelope,
  async run(ctx, input) {
    const add = [...new Set(input.add ?? [])];
    const remove = [...new Set(input.remove ?? [])];
    const both = add.filter((id) => remove.includes(id));
    if (both.length > 0) {
      throw new CoordError('invalid_request', `#${both[0]} is both added and removed — name it once`, {
        issues: [{ path: 'add', message: `#${both[0]} is also in remove` }],
      });
    }
    const outcome = await ctx.store.setDeps({ task_id: input.task_id, agent: input.agent, add, remove });
    const value = unwrap(outcome, input.task_id);
    ctx.presence.touch(input.agent, value.task.board, ctx.clock.now());
    await describeBlocked(ctx.store, [value.task]);
    return value;
  },
});
