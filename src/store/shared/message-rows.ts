/** Rows of notes, messages and receipts as both stores return them, and their domain shapes (SPEC §12). */
import type { DeliveryVia, Message, Note, Receipt } from '../../core/model.js';
import type { NewEvent } from './new-event.js';

const iso = (ms: number | string): string => new Date(Number(ms)).toISOString();
const isoOrNull = (ms: number | string | null): string | null => (ms === null ? null : iso(ms));

export interface NoteRow {
  id: string;
  seq: number;
  task_id: string;
  board: string;
  agent: string;
  text: string;
  at: number;
  idempotency_key: string | null;
  payload_hash: string;
}

export const toNote = (r: NoteRow): Note => ({
  id: r.id,
  task_id: r.task_id,
  agent: r.agent,
  text: r.text,
  at: iso(r.at),
});

export interface MessageRow {
  id: string;
  seq: number;
  board: string;
  sender: string;
  to_agent: string;
  text: string;
  task_id: string | null;
  /** 0/1 in SQLite, boolean in PostgreSQL. */
  ack_required: number | boolean;
  created_at: number;
  idempotency_key: string | null;
  payload_hash: string;
}

export interface ReceiptRow {
  message_id: string;
  recipient: string;
  board: string;
  msg_seq: number;
  created_at: number;
  ack_required: number | boolean;
  delivered_at: number | null;
  delivered_via: DeliveryVia | null;
  shown_cursor: number | null;
  acked_at: number | null;
}

export const toReceipt = (r: ReceiptRow): Receipt => ({
  agent: r.recipient,
  delivered_at: isoOrNull(r.delivered_at),
  delivered_via: r.delivered_via,
  acked_at: isoOrNull(r.acked_at),
});

export const toMessage = (m: MessageRow, receipts: ReceiptRow[]): Message => ({
  id: m.id,
  board: m.board,
  from: m.sender,
  to: m.to_agent,
  text: m.text,
  task_id: m.task_id,
  ack_required: Boolean(m.ack_required),
  created_at: iso(m.created_at),
  idempotency_key: m.idempotency_key,
  receipts: receipts
    .filter((r) => r.message_id === m.id)
    .sort((a, b) => a.recipient.localeCompare(b.recipient))
    .map(toReceipt),
});

/**
 * Messages in the order of `ids`, each with the receipts `viewer` may see: the sender (and the operator,
 * viewer undefined) sees every receipt, a recipient only its own.
 */
export function assemble(ids: string[], messages: MessageRow[], receipts: ReceiptRow[], viewer?: string): Message[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const out: Message[] = [];
  for (const id of ids) {
    const m = byId.get(id);
    if (!m) continue;
    const seen =
      viewer === undefined || m.sender === viewer ? receipts : receipts.filter((r) => r.recipient === viewer);
    out.push(toMessage(m, seen));
  }
  return out;
}

/** Unread (never shown) first, then oldest first: the order a recipient is shown its messages in. */
export const deliveryOrder = (a: ReceiptRow, b: ReceiptRow): number =>
  Number(a.delivered_at !== null) - Number(b.delivered_at !== null) || Number(a.msg_seq) - Number(b.msg_seq);

/** Whether showing these receipts records anything: a first delivery, or a first inbox cursor. */
export const recordsSomething = (rows: ReceiptRow[], cursor: number | undefined): boolean =>
  rows.some((r) => r.delivered_at === null || (cursor !== undefined && r.shown_cursor === null));

export const notedEvent = (board: string, note: NoteRow, via?: string): NewEvent => ({
  type: 'task.noted',
  board,
  task_id: note.task_id,
  agent: note.agent,
  data: { note_id: note.id, ...(via ? { with: via } : {}) },
});

export const sentEvent = (m: MessageRow, recipients: string[]): NewEvent => ({
  type: 'message.sent',
  board: m.board,
  agent: m.sender,
  // The text stays out of the event log: a message is private to its sender and recipients.
  data: {
    message_id: m.id,
    from: m.sender,
    to: m.to_agent,
    recipients,
    task_id: m.task_id,
    ack_required: Boolean(m.ack_required),
  },
});

export const ackedEvent = (board: string, messageId: string, agent: string, auto: boolean): NewEvent => ({
  type: 'message.acked',
  board,
  agent,
  data: { message_id: messageId, by: agent, auto },
});
