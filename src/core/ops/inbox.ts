import { DEFAULT_BOARD } from '../model.js';
import { defineOperation } from '../operation.js';
import { InboxInput, InboxOutput } from '../schemas.js';

/** At most this many task lines: the inbox is read into a model's context. */
export const INBOX_LINES = 20;

export const inbox = defineOperation({
  name: 'inbox',
  summary: 'Your claims first, then the tasks you may claim; with `since`, only what changed.',
  input: InboxInput,
  output: InboxOutput,
  async run(ctx, input): Promise<InboxOutput> {
    const board = input.board ?? DEFAULT_BOARD;
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    const view = await ctx.store.inbox({ agent: input.agent, board, since: input.since, limit: INBOX_LINES });
    return {
      agent: input.agent,
      board,
      cursor: view.cursor,
      claims: view.claims.map((task) => ({ task, lease_until: task.lease_until ?? '' })),
      tasks: view.tasks,
      more: view.more,
      gone: view.gone,
      blocked: view.blocked,
    };
  },
});
