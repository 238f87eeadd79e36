/** The zod shapes of SPEC §19's attention list: `GET /v1/attention` and an agent's "waiting for you". */
import { z } from 'zod';
import { AgentName, BoardName, TaskId, text } from '../schemas.js';
import { ATTENTION_KINDS } from './attention.js';

export const AttentionInput = z.object({ board: BoardName.optional() });

export const AttentionItemSchema = z.object({
  id: z.string().describe('Its kind and subject: the same thing is the same id; one resolved and back is new.'),
  kind: z.enum(ATTENTION_KINDS),
  what: z.string(),
  why: z.string(),
  since: z.string().describe('RFC 3339: since when it has been waiting.'),
  command: z.string().describe('The one command that resolves it.'),
  task_id: z.string().optional(),
  agent: z.string().optional(),
});
export const AttentionOutput = z.object({
  items: z.array(AttentionItemSchema).describe('Most urgent first, then the oldest first.'),
});

export const AgentWaitingInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  waiting: text(z.string().max(2000))
    .nullable()
    .describe("What the agent's client said it waits for (its notification hook); null: it is going again."),
  task_id: TaskId.optional(),
});
export const AgentWaitingOutput = z.object({ waiting: z.boolean() });
