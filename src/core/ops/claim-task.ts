import { unwrap } from '../board/outcomes.js';
import { DEFAULT_LEASE_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { ClaimOutput } from '../output-schemas.js';
import { ClaimTaskInput } from '../schemas.js';
import { newClaimId } from '../shared/ids.js';
import { afterClaim } from './claim-tree.js';
import { honouringHolds, lockConflictError } from './settle-holds.js';
import { trackTree } from './worktree-context.js';

export const claimTask = defineOperation({
  name: 'claim_task',
  summary: 'Claim a task by id: exactly one agent wins; losers learn the holder.',
  input: ClaimTaskInput,
  output: ClaimOutput,
  async run(ctx, input) {
    // The board is the task's: look it up only when a work tree has to be tied to it.
    const board = input.worktree && ctx.git ? (await ctx.store.getTask(input.task_id, input.agent))?.board : undefined;
    const tree = board ? await trackTree(ctx, board, input.agent, input.worktree) : null;
    const claim_id = newClaimId();
    const attempt = () =>
      ctx.store.claimTask({
        task_id: input.task_id,
        agent: input.agent,
        lease_ms: (input.lease_s ?? DEFAULT_LEASE_S) * 1000,
        claim_id,
        session_id: ctx.session_id ?? null,
        files: input.files ?? [],
        worktree: tree?.root ?? null,
      });
    const outcome = board && input.files?.length ? await honouringHolds(ctx, board, attempt) : await attempt();
    if (!outcome.ok) {
      const held = await lockConflictError(ctx, outcome, tree?.root ?? null);
      if (held) throw held;
    }
    const grant = unwrap(outcome, input.task_id);
    ctx.presence.touch(input.agent, grant.task.board, ctx.clock.now());
    return afterClaim(ctx, grant, tree);
  },
});
