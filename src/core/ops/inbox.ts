import { DEFAULT_BOARD } from '../model.js';
import { defineOperation } from '../operation.js';
import { InboxOutput } from '../output-schemas.js';
import { InboxInput } from '../schemas.js';

/** At most this many task lines: the inbox is read into a model's context. */
export const INBOX_LINES = 20;
/** At most this many message lines, unread first. */
export const INBOX_MESSAGES = 10;

export const inbox = defineOperation({
  name: 'inbox',
  summary: 'Your claims first, then the tasks you may claim; with `since`, only what changed.',
  input: InboxInput,
  output: InboxOutput,
  async run(ctx, input): Promise<InboxOutput> {
    const board = input.board ?? DEFAULT_BOARD;
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    const view = await ctx.store.inbox({ agent: input.agent, board, since: input.since, limit: INBOX_LINES });
    // Unread messages come first (SPEC §12); showing them records delivery, `since` acknowledges the no-ack ones.
    const mail =
      view.mail === false
        ? { messages: [], unread: 0 }
        : await ctx.store.deliverMessages({
            agent: input.agent,
            board,
            via: 'inbox',
            all: true,
            peek: false,
            since: input.since,
            cursor: view.cursor,
            limit: INBOX_MESSAGES,
          });
    return {
      agent: input.agent,
      board,
      cursor: view.cursor,
      claims: view.claims.map((task) => ({ task, lease_until: task.lease_until ?? '' })),
      tasks: view.tasks,
      more: view.more,
      gone: view.gone,
      blocked: view.blocked,
      messages: mail.messages,
      unread: mail.unread,
    };
  },
});
