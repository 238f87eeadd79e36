/**
 * Messages (SPEC §12) of both stores, and their port with the notes (notes.ts): programs (program.ts) over the
 * statements in each store's dialect (`<store>/messages-sql.ts`).
 */
import type {
  DeliverCommand,
  ListMessagesQuery,
  NotesAndMessages,
  SendMessageCommand,
} from '../../core/messages/message-ports.js';
import type { Message } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from './idempotency.js';
import {
  ackedEvent,
  assemble,
  deliveryOrder,
  type MessageRow,
  type ReceiptRow,
  recordsSomething,
  sentEvent,
} from './message-rows.js';
import { deliverValues, linkedTaskRefusal, listValues, messageValues, readableBy } from './message-rules.js';
import type { MessagesSql } from './messages-sql.js';
import { addNote, taskNotes } from './notes.js';
import { all, emit, get, type Prog, type Q, type Runner, run } from './program.js';
import type { TaskRow } from './rows.js';

type W = Q<MessagesSql>;
type Delivery = { messages: Message[]; unread: number };

/** The messages of these ids, each with the receipts `viewer` may see. */
function* load(sql: MessagesSql, ids: string[], viewer: string | undefined): Prog<Message[]> {
  if (ids.length === 0) return [];
  const ms = yield* all<MessageRow>(sql.messagesByIds, { ids });
  const rs = yield* all<ReceiptRow>(sql.receiptsByIds, { ids });
  return assemble(ids, ms, rs, viewer);
}

export function* sendMessage(q: W, cmd: SendMessageCommand): Prog<Outcome<{ message: Message; created: boolean }>> {
  if (cmd.task_id !== null) {
    const refused = linkedTaskRefusal(yield* get<TaskRow>(q.sql.taskById, { id: cmd.task_id }), cmd);
    if (refused) return refused;
  }
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = yield* get<MessageRow>(q.sql.messageByKey, { board: cmd.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, '');
        return conflict ?? { ok: true, message: (yield* load(q.sql, [existing.id], cmd.from))[0]!, created: false };
      }
    }
    // Nothing inserted: a taken id, or (PostgreSQL) a concurrent send with the same key committed first: again.
    const r = yield* get<MessageRow>(q.sql.insertMessage, messageValues(cmd, q.now));
    if (!r) continue;
    const receipt = { message_id: r.id, board: r.board, msg_seq: r.seq, now: q.now, ack_required: r.ack_required };
    yield* run(q.sql.insertReceipts, { ...receipt, recipients: cmd.recipients });
    yield* emit(sentEvent(r, cmd.recipients));
    return { ok: true, message: (yield* load(q.sql, [r.id], cmd.from))[0]!, created: true };
  }
}

function* listMessages(sql: MessagesSql, q: ListMessagesQuery): Prog<Message[]> {
  const text = q.agent === undefined ? sql.listAll : q.box === 'sent' ? sql.listSent : sql.listReceived;
  const found = (yield* all<{ id: string }>(text, listValues(q))).map((r) => r.id);
  return yield* load(sql, found, q.agent);
}

/** Read-only: would delivering record anything? (An inbox poll with nothing new must not take the write lock.) */
function* deliveryWrites(sql: MessagesSql, cmd: DeliverCommand): Prog<boolean> {
  if (cmd.peek) return false;
  const p = deliverValues(cmd);
  if (cmd.since !== undefined && (yield* get(sql.anyAutoAck, p))) return true;
  return recordsSomething(yield* all<ReceiptRow>(sql.selected, p), cmd.cursor);
}

/** The receipts to show, in delivery order, after recording (when `now` is given) what showing them means. */
function* deliver(sql: MessagesSql, cmd: DeliverCommand, now: number | null): Prog<Delivery> {
  const p = deliverValues(cmd);
  if (now !== null && cmd.since !== undefined) {
    for (const a of yield* all<{ message_id: string }>(sql.autoAck, { ...p, now })) {
      yield* emit(ackedEvent(cmd.board, a.message_id, cmd.agent, true));
    }
  }
  const shown = yield* all<ReceiptRow>(sql.selected, p);
  if (now !== null && recordsSomething(shown, cmd.cursor)) {
    const ids = shown.map((r) => r.message_id);
    yield* run(sql.markShown, { agent: cmd.agent, ids, now, via: cmd.via, cursor: cmd.cursor ?? null });
  }
  const order = [...shown].sort(deliveryOrder).map((r) => r.message_id);
  const unread = (yield* get<{ n: number }>(sql.unread, p))?.n ?? 0;
  return { messages: yield* load(sql, order, cmd.agent), unread };
}

/** A delivery read-only when it records nothing (most inbox polls), or 'write'. */
function* look(sql: MessagesSql, cmd: DeliverCommand): Prog<Delivery | 'write'> {
  // One index probe first: has the agent any unacknowledged message on the board? (Most polls: no.)
  if (!(yield* get(sql.anyOpen, { agent: cmd.agent, board: cmd.board }))) return { messages: [], unread: 0 };
  return (yield* deliveryWrites(sql, cmd)) ? 'write' : yield* deliver(sql, cmd, null);
}

function* ackMessage(
  q: W,
  cmd: { message_id: string; agent: string },
): Prog<Outcome<{ message: Message; acked: boolean }>> {
  const p = { now: q.now, id: cmd.message_id, agent: cmd.agent };
  const acked = yield* get<ReceiptRow>(q.sql.ack, p);
  if (acked) yield* emit(ackedEvent(acked.board, cmd.message_id, cmd.agent, false));
  else if (!(yield* get(q.sql.receiptExists, p))) return { ok: false, reason: 'not_found' };
  return { ok: true, message: (yield* load(q.sql, [cmd.message_id], cmd.agent))[0]!, acked: acked !== undefined };
}

/** The port (core/messages/message-ports.ts) over a store's runner. */
export const messagesPort = (r: Runner<MessagesSql>): NotesAndMessages => ({
  addNote: (cmd) => r.write((q) => addNote(q, cmd)),
  taskNotes: (taskId, limit) => r.read((sql) => taskNotes(sql, taskId, limit)),
  sendMessage: (cmd) => r.write((q) => sendMessage(q, cmd)),
  listMessages: (query) => r.read((sql) => listMessages(sql, query)),
  async deliverMessages(cmd) {
    const looked = await r.read((sql) => look(sql, cmd));
    return looked === 'write' ? r.write((q) => deliver(q.sql, cmd, q.now)) : looked;
  },
  ackMessage: (cmd) => r.write((q) => ackMessage(q, cmd)),
  getMessage: (id, agent) =>
    r.read(function* (sql) {
      return readableBy((yield* load(sql, [id], agent))[0], agent);
    }),
  unreadCounts: (board) =>
    r.read((sql) => all<{ agent: string; unread: number }>(sql.unreadCounts, { board: board ?? null })),
});
