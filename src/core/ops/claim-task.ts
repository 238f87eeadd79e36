import { newClaimId } from '../ids.js';
import { DEFAULT_LEASE_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { unwrap } from '../outcomes.js';
import { ClaimOutput, ClaimTaskInput } from '../schemas.js';

export const claimTask = defineOperation({
  name: 'claim_task',
  summary: 'Claim a task by id: exactly one agent wins; losers learn the holder.',
  input: ClaimTaskInput,
  output: ClaimOutput,
  async run(ctx, input) {
    const outcome = await ctx.store.claimTask({
      task_id: input.task_id,
      agent: input.agent,
      lease_ms: (input.lease_s ?? DEFAULT_LEASE_S) * 1000,
      claim_id: newClaimId(),
      session_id: ctx.session_id ?? null,
      files: input.files ?? [],
    });
    const grant = unwrap(outcome, input.task_id);
    ctx.presence.touch(input.agent, grant.task.board, ctx.clock.now());
    return grant;
  },
});
