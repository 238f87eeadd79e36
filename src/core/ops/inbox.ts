import { DEFAULT_BOARD, type Task } from '../model.js';
import { defineOperation } from '../operation.js';
import { InboxOutput } from '../output-schemas.js';
import type { Store } from '../ports.js';
import { InboxInput } from '../schemas.js';

/** At most this many task lines: the inbox is read into a model's context. */
export const INBOX_LINES = 20;
/** At most this many message lines, unread first. */
export const INBOX_MESSAGES = 10;
/** The handoff's note is among the task's last few notes (it is written with the release). */
const HANDOFF_NOTES = 5;

/**
 * A task handed to `agent` (release with `to`) carries the note its last holder left with it (issue 26: the
 * inbox said nothing of a handoff). One read per handed-over task, and only for those.
 */
async function withHandoffNotes(store: Store, tasks: Task[], agent: string): Promise<Task[]> {
  return Promise.all(
    tasks.map(async (t) => {
      if (!t.handed_by || t.for !== agent) return t;
      const { notes } = await store.taskNotes(t.id, HANDOFF_NOTES);
      const note = notes.filter((n) => n.agent === t.handed_by).at(-1);
      return note ? { ...t, handoff_note: note.text } : t;
    }),
  );
}

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
      tasks: await withHandoffNotes(ctx.store, view.tasks, input.agent),
      more: view.more,
      gone: view.gone,
      blocked: view.blocked,
      messages: mail.messages,
      unread: mail.unread,
    };
  },
});
