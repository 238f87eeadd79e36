import { defineOperation } from '../operation.js';
import { EventsOutput } from '../output-schemas.js';
import { EventsInput } from '../schemas.js';

export const listEvents = defineOperation({
  name: 'list_events',
  summary: 'The audit trail: events after `since`, oldest first.',
  input: EventsInput,
  output: EventsOutput,
  async run(ctx, input) {
    const since = input.since ?? 0;
    const events = await ctx.store.events({
      board: input.board,
      since,
      limit: input.limit ?? 200,
      task_id: input.task,
      tail: input.tail,
    });
    return { events, next_since: events.at(-1)?.seq ?? since };
  },
});
