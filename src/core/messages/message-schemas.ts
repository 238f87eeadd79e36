/** The shapes of the notes and messages operations (SPEC §12); the Note and Message shapes are in output-schemas.ts. */
import { z } from 'zod';
import { DeliveryViaSchema, MessageSchema, NoteSchema } from '../output-schemas.js';
import {
  AgentName,
  BoardName,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_NOTE_BYTES,
  MessageId,
  NoteText,
  TaskId,
  text,
} from '../schemas.js';

const IdempotencyKey = text()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_CHARS)
  .describe('Names one intent: sending again with the same key and payload returns the first one.');

export const AddNoteInput = z.object({
  task_id: TaskId,
  agent: AgentName,
  text: NoteText.describe('The note: what was done, what is left, what the next agent should know.'),
  idempotency_key: IdempotencyKey.optional(),
});
export const AddNoteOutput = z.object({ note: NoteSchema, created: z.boolean() });

export const SendMessageInput = z.object({
  agent: AgentName,
  to: z
    .string()
    .regex(
      /^(\*|[A-Za-z0-9._:#@/-]{1,64})$/,
      'must be an agent name (1–64 characters of A-Z a-z 0-9 . _ : # @ / -) or *',
    )
    .describe('The agent to tell, or "*" for every agent known on the board (seen in the last 24 h).'),
  text: NoteText.describe(`The message (at most ${MAX_NOTE_BYTES} bytes).`),
  task_id: TaskId.optional().describe('The task this message is about.'),
  ack_required: z.boolean().optional().describe('The recipient should acknowledge it with ack_message.'),
  idempotency_key: IdempotencyKey.optional(),
  board: BoardName.optional(),
});
export const MessageEnvelope = z.object({ message: MessageSchema });
export const SendMessageOutput = z.object({ message: MessageSchema, created: z.boolean() });

export const ListMessagesInput = z.object({
  agent: AgentName.optional().describe('Whose messages; omit for the operator view (every message, nothing marked).'),
  box: z.enum(['inbox', 'sent']).optional().describe('inbox (default): messages to you; sent: yours, with receipts.'),
  board: BoardName.optional(),
  task_id: TaskId.optional().describe('Only messages about this task.'),
  unacked: z
    .union([z.boolean(), z.enum(['true', 'false']).transform((s) => s === 'true')])
    .optional()
    .describe('Only messages not acknowledged yet.'),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
export const ListMessagesOutput = z.object({ messages: z.array(MessageSchema) });

export const ShowMessageInput = z.object({ message_id: MessageId, agent: AgentName.optional() });
export const AckMessageInput = z.object({ message_id: MessageId, agent: AgentName });
export const AckMessageOutput = z.object({ message: MessageSchema, acked: z.boolean() });

export const PendingMessagesInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  via: DeliveryViaSchema.describe('How the caller shows them: prime, stop (hook), push or inbox.'),
  all: z.boolean().optional().describe('Every unacknowledged message, not only those never shown before.'),
  peek: z.boolean().optional().describe('Record nothing (the relay peeks, pushes, then marks with ids).'),
  ids: z.array(MessageId).max(100).optional().describe('Only these messages.'),
  limit: z.int().min(1).max(100).optional(),
});
export const PendingMessagesOutput = z.object({ messages: z.array(MessageSchema), unread: z.int() });
