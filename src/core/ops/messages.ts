/**
 * Messages between agents (SPEC §12). Reading never consumes: every showing
 * records its first delivery (when, and how: inbox, prime, stop, push), and a
 * message stays listed until its recipient acknowledges it.
 */

import { unwrap } from '../board/outcomes.js';
import { CoordError } from '../errors.js';
import {
  AckMessageInput,
  AckMessageOutput,
  ListMessagesInput,
  ListMessagesOutput,
  MessageEnvelope,
  PendingMessagesInput,
  PendingMessagesOutput,
  SendMessageInput,
  SendMessageOutput,
  ShowMessageInput,
} from '../messages/message-schemas.js';
import { DEFAULT_BOARD } from '../model.js';
import type { Ctx } from '../operation.js';
import { defineOperation } from '../operation.js';
import { boundMessage } from '../shared/bounded.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';

/** "Everyone on the board": the agents seen there in this window (events or presence) when the message is sent. */
export const BROADCAST_WINDOW_MS = 24 * 3600_000;

/** Every agent known on the board but the sender: seen in its event log or polling it in the last 24 h. */
export async function knownAgents(ctx: Ctx, board: string, except: string): Promise<string[]> {
  const act = await ctx.store.activity({ board, since_ms: BROADCAST_WINDOW_MS });
  const now = ctx.clock.now();
  const names = new Set(act.agents.map((a) => a.name));
  for (const p of ctx.presence.list(board)) if (now - p.at < BROADCAST_WINDOW_MS) names.add(p.name);
  for (const c of act.claims) names.add(c.agent);
  names.delete(except);
  return [...names].sort();
}

const notAddressed = (id: string, agent: string) =>
  new CoordError('not_found', `no message ${id} for ${agent} (it does not exist, or it is not yours)`, {
    message_id: id,
  });

export const sendMessage = defineOperation({
  name: 'send_message',
  summary: 'Tell another agent (or every agent on the board, to "*") something; the receipt says when it was read.',
  input: SendMessageInput,
  output: SendMessageOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    const fields = {
      board,
      from: input.agent,
      to: input.to,
      text: input.text,
      task_id: input.task_id ?? null,
      ack_required: input.ack_required ?? false,
    };
    const recipients = input.to === '*' ? await knownAgents(ctx, board, input.agent) : [input.to];
    const outcome = await ctx.store.sendMessage({
      ...fields,
      recipients,
      idempotency_key: input.idempotency_key ?? null,
      // One intent: every field, the sender included (another agent's key never returns this message).
      payload_hash: sha256Hex(canonicalJson(fields)),
    });
    if (!outcome.ok && outcome.reason === 'idempotency_conflict') {
      throw new CoordError(
        'idempotency_conflict',
        'that idempotency_key already names another message — use a new key for a new message',
      );
    }
    const sent = unwrap(outcome, input.task_id ?? '');
    return { ...sent, message: boundMessage(sent.message) };
  },
});

export const listMessages = defineOperation({
  name: 'list_messages',
  summary: 'Messages to you (box=inbox, default; showing them records delivery) or from you (box=sent, with receipts).',
  input: ListMessagesInput,
  output: ListMessagesOutput,
  async run(ctx, input) {
    const box = input.box ?? 'inbox';
    const q = {
      agent: input.agent,
      box,
      board: input.board,
      task_id: input.task_id,
      unacked: input.unacked ?? false,
      limit: input.limit ?? 50,
    };
    const messages = await ctx.store.listMessages(q);
    if (box !== 'inbox' || input.agent === undefined) return { messages: messages.map(boundMessage) };
    // Shown now: record the first delivery of those never shown (they stay listed until acknowledged).
    const fresh = messages.filter((m) => m.receipts.some((r) => r.agent === input.agent && r.delivered_at === null));
    const byBoard = new Map<string, string[]>();
    for (const m of fresh) byBoard.set(m.board, [...(byBoard.get(m.board) ?? []), m.id]);
    const marked = new Map<string, (typeof messages)[number]>();
    for (const [board, ids] of byBoard) {
      const out = await ctx.store.deliverMessages({
        agent: input.agent,
        board,
        via: 'inbox',
        all: false,
        peek: false,
        ids,
        limit: ids.length,
      });
      for (const m of out.messages) marked.set(m.id, m);
    }
    return { messages: messages.map((m) => boundMessage(marked.get(m.id) ?? m)) };
  },
});

export const ackMessage = defineOperation({
  name: 'ack_message',
  summary: 'Acknowledge a message addressed to you: it leaves your inbox. Acknowledging twice is fine.',
  input: AckMessageInput,
  output: AckMessageOutput,
  async run(ctx, input) {
    const outcome = await ctx.store.ackMessage({ message_id: input.message_id, agent: input.agent });
    if (!outcome.ok) throw notAddressed(input.message_id, input.agent);
    ctx.presence.touch(input.agent, outcome.message.board, ctx.clock.now());
    return { message: boundMessage(outcome.message), acked: outcome.acked };
  },
});

/**
 * Get-and-mark for the places that show messages outside the inbox: `coord prime` (via "prime"),
 * the stop hook ("stop") and the push relay ("push": peek, write the frame, then mark by ids).
 * Without `all`, only messages never shown before: the stop hook blocks once per message, never twice.
 */
export const pendingMessages = defineOperation({
  name: 'pending_messages',
  summary: 'Messages to you not shown yet (or with all, every unacknowledged one), recorded as shown via `via`.',
  input: PendingMessagesInput,
  output: PendingMessagesOutput,
  async run(ctx, input) {
    return ctx.store.deliverMessages({
      agent: input.agent,
      board: input.board ?? DEFAULT_BOARD,
      via: input.via,
      all: input.all ?? false,
      peek: input.peek ?? false,
      ids: input.ids,
      limit: input.limit ?? 20,
    });
  },
});

export const showMessage = defineOperation({
  name: 'show_message',
  summary: 'One message with its receipts; not_found to anyone but its sender and recipients.',
  input: ShowMessageInput,
  output: MessageEnvelope,
  async run(ctx, input) {
    const found = await ctx.store.getMessage(input.message_id, input.agent);
    if (!found) throw notAddressed(input.message_id, input.agent ?? 'the operator');
    const mine = found.receipts.find((r) => r.agent === input.agent);
    if (!input.agent || !mine || mine.delivered_at !== null) return { message: boundMessage(found) };
    const out = await ctx.store.deliverMessages({
      agent: input.agent,
      board: found.board,
      via: 'inbox',
      all: false,
      peek: false,
      ids: [found.id],
      limit: 1,
    });
    // The sender reading its own message to itself keeps every receipt in view.
    return { message: boundMessage((await ctx.store.getMessage(found.id, input.agent)) ?? out.messages[0] ?? found) };
  },
});
