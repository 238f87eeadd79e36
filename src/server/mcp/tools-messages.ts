/** The MCP tools of notes and messages (SPEC §12): add_note, send_message, ack_message, list_messages. */
import { z } from 'zod';
import { invoke } from '../../core/invoke.js';
import {
  AckMessageInput,
  AddNoteInput,
  ListMessagesInput,
  SendMessageInput,
} from '../../core/messages/message-schemas.js';
import { messageLine } from '../../core/messages/message-text.js';
import type { Message } from '../../core/model.js';
import { operations as op } from '../../core/operations.js';
import type { Tool } from './tools.js';

const WRITE = { destructiveHint: false, openWorldHint: false } as const;

function receiptsText(m: Message): string {
  if (m.receipts.length === 0) return 'no recipients (nobody else is known on this board yet)';
  const c = m.receipt_counts;
  const more = c ? ` · … ${c.recipients} recipients in all: ${c.delivered} delivered, ${c.acked} acknowledged` : '';
  return `${m.receipts
    .map((r) => {
      const state = r.acked_at
        ? 'acknowledged'
        : r.delivered_at
          ? `delivered via ${r.delivered_via}`
          : 'not delivered yet';
      return `${r.agent}: ${state}`;
    })
    .join(' · ')}${more}`;
}

export const messageTools: Tool[] = [
  {
    name: 'add_note',
    description:
      'Add a note to a task: what you did, what is left, what the next agent should know. Anyone who can see the task may; notes are kept in order and shown with show_task.',
    input: AddNoteInput.omit({ agent: true }),
    annotations: WRITE,
    core: {
      description: 'Note on a task for the next agent: what was done, what is left.',
      args: { task_id: 'Task id.', text: 'The note.' },
    },
    async run(args, { ctx, session }) {
      const out = await invoke(op.addNote, ctx, { ...args, agent: session.agent });
      const what = out.created ? 'noted' : 'already noted (same idempotency_key)';
      return { text: `${what} on #${out.note.task_id} (note ${out.note.id})`, data: out };
    },
  },
  {
    name: 'send_message',
    description:
      'Tell another agent something (a bug you found, "please take over", an answer), or every agent on this board with to "*". It reaches them at their next inbox, or at once in a live Claude Code session. With ack_required they should acknowledge it; list_messages with box "sent" shows whether it was delivered and acknowledged.',
    input: SendMessageInput.omit({ agent: true, board: true }),
    annotations: WRITE,
    core: {
      description: 'Tell another agent something, or every agent here with to "*"; it shows in their inbox.',
      args: { to: 'Agent name or "*".', text: 'The message.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const out = await invoke(op.sendMessage, ctx, { ...args, agent: session.agent, board: session.board });
      const m = out.message;
      const head = out.created ? `sent message ${m.id}` : `message ${m.id} was already sent with that idempotency_key`;
      return { text: `${head} — ${receiptsText(m)}`, data: out };
    },
  },
  {
    name: 'ack_message',
    description:
      'Acknowledge a message addressed to you (by its id, e.g. "m3k9x2qab"): it leaves your inbox and its sender sees the receipt. Acknowledging twice is fine.',
    input: AckMessageInput.omit({ agent: true }),
    annotations: WRITE,
    core: {
      description: 'Acknowledge a message to you once handled: it leaves your inbox.',
      args: { message_id: 'Its id.' },
      lean: true,
    },
    async run(args, { ctx, session }) {
      const out = await invoke(op.ackMessage, ctx, { ...args, agent: session.agent });
      const text = out.acked
        ? `acknowledged ${out.message.id} from ${out.message.from}`
        : `${out.message.id} was already acknowledged`;
      return { text, data: out };
    },
  },
  {
    name: 'list_messages',
    description:
      'Messages to you (box "inbox", default), or the ones you sent (box "sent") with each recipient’s receipt: delivered (how) and acknowledged.',
    input: ListMessagesInput.pick({ box: true, task_id: true, limit: true }).extend({
      unacked: z.boolean().optional().describe('Only messages not acknowledged yet.'),
    }),
    annotations: { readOnlyHint: true },
    async run(args, { ctx, session }) {
      const out = await invoke(op.listMessages, ctx, { ...args, agent: session.agent, board: session.board });
      if (out.messages.length === 0) return { text: 'no messages', data: out };
      const now = ctx.clock.now();
      const sent = args.box === 'sent';
      const lines = out.messages.map((m) =>
        sent ? `${messageLine(m, now)}\n  ${receiptsText(m)}` : messageLine(m, now),
      );
      return { text: lines.join('\n'), data: out };
    },
  },
];
