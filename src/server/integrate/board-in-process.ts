/** The board as the daemon's own integrator reaches it (`serve --integrate`): the operations, invoked in process. */
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { operations as op } from '../../core/operations.js';
import type { IntegratorBoard } from '../../git/integrator.js';

export function boardInProcess(ctx: Ctx): IntegratorBoard {
  return {
    takeSlot: (input) => invoke(op.takeIntegrationSlot, ctx, input),
    releaseSlot: (input) => invoke(op.releaseIntegrationSlot, ctx, input),
    queue: async (board) => (await invoke(op.integrationQueue, ctx, { board })).queue,
    record: (input) => invoke(op.recordIntegration, ctx, input),
    window: (input) => invoke(op.recordIntegrationWindow, ctx, input),
  };
}
