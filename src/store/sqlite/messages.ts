import type { DeliverCommand, ListMessagesQuery, SendMessageCommand } from '../../core/messages/message-ports.js';
import type { Message } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import {
  ackedEvent,
  assemble,
  deliveryOrder,
  type MessageRow,
  type ReceiptRow,
  recordsSomething,
  sentEvent,
} from '../shared/message-rows.js';
import { deliverValues, linkedTaskRefusal, listValues, messageValues, readableBy } from '../shared/message-rules.js';
import type { TaskRow } from '../shared/rows.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const INSERT = `INSERT INTO messages (id, seq, board, sender, to_agent, text, task_id, ack_required, created_at,
                   idempotency_key, payload_hash)
  VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages), @board, @sender, @to_agent, @text, @task_id,
          @ack_required, @now, @idempotency_key, @payload_hash)
  ON CONFLICT (id) DO NOTHING RETURNING *`;
const RECEIPT = `INSERT INTO message_receipts (message_id, recipient, board, msg_seq, created_at, ack_required)
  VALUES (@message_id, @recipient, @board, @msg_seq, @now, @ack_required)`;

const ids = (xs: string[]) => JSON.stringify(xs);
const IN_IDS = '(SELECT value FROM json_each(@ids))';

/** The messages of these ids, each with the receipts `viewer` may see. */
export function load(db: Db, messageIds: string[], viewer: string | undefined): Message[] {
  if (messageIds.length === 0) return [];
  const p = { ids: ids(messageIds) };
  const ms = stmt(db, `SELECT * FROM messages WHERE id IN ${IN_IDS}`).all(p) as MessageRow[];
  const rs = stmt(db, `SELECT * FROM message_receipts WHERE message_id IN ${IN_IDS}`).all(p) as ReceiptRow[];
  return assemble(messageIds, ms, rs, viewer);
}

export function sendMessage(tx: Tx, cmd: SendMessageCommand): Outcome<{ message: Message; created: boolean }> {
  if (cmd.task_id !== null) {
    const refused = linkedTaskRefusal(stmt(tx.db, 'SELECT * FROM tasks WHERE id = ?').get(cmd.task_id) as TaskRow, cmd);
    if (refused) return refused;
  }
  if (cmd.idempotency_key !== null) {
    const existing = stmt(tx.db, 'SELECT * FROM messages WHERE board = ? AND idempotency_key = ?').get(
      cmd.board,
      cmd.idempotency_key,
    ) as MessageRow | undefined;
    if (existing) {
      const conflict = idempotencyConflict(existing, cmd.payload_hash, '');
      return conflict ?? { ok: true, message: load(tx.db, [existing.id], cmd.from)[0]!, created: false };
    }
  }
  for (;;) {
    const row = stmt(tx.db, INSERT).get({ ...messageValues(cmd, tx.now), ack_required: cmd.ack_required ? 1 : 0 }) as
      | MessageRow
      | undefined;
    if (!row) continue;
    for (const recipient of cmd.recipients) {
      stmt(tx.db, RECEIPT).run({
        message_id: row.id,
        recipient,
        board: row.board,
        msg_seq: row.seq,
        now: tx.now,
        ack_required: row.ack_required,
      });
    }
    appendEvent(tx, sentEvent(row, cmd.recipients));
    return { ok: true, message: load(tx.db, [row.id], cmd.from)[0]!, created: true };
  }
}

export function listMessages(db: Db, q: ListMessagesQuery): Message[] {
  const p = { ...listValues(q), unacked: q.unacked ? 1 : 0 };
  const filters = `(@board IS NULL OR m.board = @board) AND (@task_id IS NULL OR m.task_id = @task_id)`;
  let sql: string;
  if (q.agent === undefined) {
    sql = `SELECT m.id FROM messages m WHERE ${filters}
      AND (@unacked = 0 OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))
      ORDER BY m.seq DESC LIMIT @limit`;
  } else if (q.box === 'sent') {
    sql = `SELECT m.id FROM messages m WHERE m.sender = @agent AND ${filters}
      AND (@unacked = 0 OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))
      ORDER BY m.seq DESC LIMIT @limit`;
  } else {
    sql = `SELECT m.id FROM message_receipts r JOIN messages m ON m.id = r.message_id
      WHERE r.recipient = @agent AND ${filters} AND (@unacked = 0 OR r.acked_at IS NULL)
      ORDER BY r.msg_seq DESC LIMIT @limit`;
  }
  const found = (stmt(db, sql).all(p) as { id: string }[]).map((r) => r.id);
  return load(db, found, q.agent);
}

export function getMessage(db: Db, id: string, agent: string | undefined): Message | null {
  return readableBy(load(db, [id], agent)[0], agent);
}

const OPEN = `recipient = @agent AND board = @board AND acked_at IS NULL`;
const AUTO_ACK = `${OPEN} AND ack_required = 0 AND shown_cursor IS NOT NULL AND shown_cursor <= @since`;
const SELECTED = `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all = 1 OR delivered_at IS NULL)
  AND (@ids IS NULL OR message_id IN ${IN_IDS}) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`;
const UNREAD = `SELECT count(*) AS n FROM message_receipts WHERE ${OPEN}`;

const params = (cmd: DeliverCommand) => ({
  ...deliverValues(cmd),
  all: cmd.all ? 1 : 0,
  ids: cmd.ids ? ids(cmd.ids) : null,
});

/** Read-only, one index probe: has the agent any unacknowledged message on the board? (Most inbox polls: no.) */
export const anyOpen = (db: Db, agent: string, board: string): boolean =>
  stmt(db, `SELECT 1 FROM message_receipts WHERE ${OPEN} LIMIT 1`).get({ agent, board }) !== undefined;

/** Read-only: would delivering record anything? (An inbox poll with nothing new must not take the write lock.) */
export function deliveryWrites(db: Db, cmd: DeliverCommand): boolean {
  if (cmd.peek) return false;
  const p = params(cmd);
  if (cmd.since !== undefined && stmt(db, `SELECT 1 FROM message_receipts WHERE ${AUTO_ACK} LIMIT 1`).get(p))
    return true;
  return recordsSomething(stmt(db, SELECTED).all(p) as ReceiptRow[], cmd.cursor);
}

/** The receipts to show, in delivery order, after recording (unless peek) what showing them means. */
export function deliver(db: Db, cmd: DeliverCommand, tx: Tx | null): { messages: Message[]; unread: number } {
  const p = params(cmd);
  if (tx && cmd.since !== undefined) {
    const acked = stmt(tx.db, `UPDATE message_receipts SET acked_at = @now WHERE ${AUTO_ACK} RETURNING message_id`).all(
      {
        ...p,
        now: tx.now,
      },
    ) as { message_id: string }[];
    for (const a of acked) appendEvent(tx, ackedEvent(cmd.board, a.message_id, cmd.agent, true));
  }
  const shown = stmt(db, SELECTED).all(p) as ReceiptRow[];
  if (tx && recordsSomething(shown, cmd.cursor)) {
    stmt(
      tx.db,
      `UPDATE message_receipts SET delivered_at = COALESCE(delivered_at, @now),
              delivered_via = COALESCE(delivered_via, @via),
              shown_cursor = CASE WHEN @cursor IS NULL THEN shown_cursor ELSE COALESCE(shown_cursor, @cursor) END
       WHERE recipient = @agent AND message_id IN ${IN_IDS}`,
    ).run({
      agent: cmd.agent,
      ids: ids(shown.map((r) => r.message_id)),
      now: tx.now,
      via: cmd.via,
      cursor: cmd.cursor ?? null,
    });
  }
  const order = [...shown].sort(deliveryOrder).map((r) => r.message_id);
  const unread = (stmt(db, UNREAD).get(p) as { n: number }).n;
  return { messages: load(db, order, cmd.agent), unread };
}

export function ackMessage(
  tx: Tx,
  cmd: { message_id: string; agent: string },
): Outcome<{ message: Message; acked: boolean }> {
  const receipt = stmt(tx.db, 'SELECT * FROM message_receipts WHERE message_id = ? AND recipient = ?').get(
    cmd.message_id,
    cmd.agent,
  ) as ReceiptRow | undefined;
  if (!receipt) return { ok: false, reason: 'not_found' };
  const acked = stmt(
    tx.db,
    'UPDATE message_receipts SET acked_at = @now WHERE message_id = @id AND recipient = @agent AND acked_at IS NULL',
  ).run({ now: tx.now, id: cmd.message_id, agent: cmd.agent }).changes;
  if (acked > 0) appendEvent(tx, ackedEvent(receipt.board, cmd.message_id, cmd.agent, false));
  return { ok: true, message: load(tx.db, [cmd.message_id], cmd.agent)[0]!, acked: acked > 0 };
}

export function unreadCounts(db: Db, board: string | undefined): { agent: string; unread: number }[] {
  return stmt(
    db,
    `SELECT recipient AS agent, count(*) AS unread FROM message_receipts
     WHERE acked_at IS NULL AND (@board IS NULL OR board = @board) GROUP BY recipient`,
  ).all({ board: board ?? null }) as { agent: string; unread: number }[];
}
