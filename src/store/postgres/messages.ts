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
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const INSERT = `INSERT INTO messages (id, board, sender, to_agent, text, task_id, ack_required, created_at,
                   idempotency_key, payload_hash)
  VALUES (@id, @board, @sender, @to_agent, @text, @task_id, @ack_required, @now::bigint, @idempotency_key, @payload_hash)
  ON CONFLICT DO NOTHING RETURNING *`;
const RECEIPTS = `INSERT INTO message_receipts (message_id, recipient, board, msg_seq, created_at, ack_required)
  SELECT @message_id, r, @board, @msg_seq::bigint, @now::bigint, @ack_required FROM unnest(@recipients::text[]) AS r`;
const BY_KEY = 'SELECT * FROM messages WHERE board = @board AND idempotency_key = @key';

export async function load(db: Queryable, ids: string[], viewer: string | undefined): Promise<Message[]> {
  if (ids.length === 0) return [];
  const ms = await rows<MessageRow>(db, 'SELECT * FROM messages WHERE id = ANY(@ids::text[])', { ids });
  const rs = await rows<ReceiptRow>(db, 'SELECT * FROM message_receipts WHERE message_id = ANY(@ids::text[])', { ids });
  return assemble(ids, ms, rs, viewer);
}

export async function sendMessage(
  tx: Tx,
  cmd: SendMessageCommand,
): Promise<Outcome<{ message: Message; created: boolean }>> {
  if (cmd.task_id !== null) {
    const refused = linkedTaskRefusal(
      await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id: cmd.task_id }),
      cmd,
    );
    if (refused) return refused;
  }
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = await row<MessageRow>(tx.db, BY_KEY, { board: cmd.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, '');
        return conflict ?? { ok: true, message: (await load(tx.db, [existing.id], cmd.from))[0]!, created: false };
      }
    }
    // Nothing inserted: a taken id, or a concurrent send with the same key committed first: look again.
    const r = await row<MessageRow>(tx.db, INSERT, messageValues(cmd, tx.now));
    if (!r) continue;
    await rows(tx.db, RECEIPTS, {
      message_id: r.id,
      board: r.board,
      msg_seq: r.seq,
      now: tx.now,
      ack_required: r.ack_required,
      recipients: cmd.recipients,
    });
    appendEvent(tx, sentEvent(r, cmd.recipients));
    return { ok: true, message: (await load(tx.db, [r.id], cmd.from))[0]!, created: true };
  }
}

export async function listMessages(db: Queryable, q: ListMessagesQuery): Promise<Message[]> {
  const p = listValues(q);
  const filters = '(@board::text IS NULL OR m.board = @board) AND (@task_id::text IS NULL OR m.task_id = @task_id)';
  const open = `(NOT @unacked::boolean OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))`;
  let sql: string;
  if (q.agent === undefined) {
    sql = `SELECT m.id FROM messages m WHERE @agent::text IS NULL AND ${filters} AND ${open} ORDER BY m.seq DESC LIMIT @limit`;
  } else if (q.box === 'sent') {
    sql = `SELECT m.id FROM messages m WHERE m.sender = @agent AND ${filters} AND ${open} ORDER BY m.seq DESC LIMIT @limit`;
  } else {
    sql = `SELECT m.id FROM message_receipts r JOIN messages m ON m.id = r.message_id
      WHERE r.recipient = @agent AND ${filters} AND (NOT @unacked::boolean OR r.acked_at IS NULL)
      ORDER BY r.msg_seq DESC LIMIT @limit`;
  }
  const found = (await rows<{ id: string }>(db, sql, p)).map((r) => r.id);
  return load(db, found, q.agent);
}

export async function getMessage(db: Queryable, id: string, agent: string | undefined): Promise<Message | null> {
  return readableBy((await load(db, [id], agent))[0], agent);
}

const OPEN = 'recipient = @agent AND board = @board AND acked_at IS NULL';
const AUTO_ACK = `${OPEN} AND NOT ack_required AND shown_cursor IS NOT NULL AND shown_cursor <= @since::bigint`;
const SELECTED = `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all::boolean OR delivered_at IS NULL)
  AND (@ids::text[] IS NULL OR message_id = ANY(@ids::text[])) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`;
const UNREAD = `SELECT count(*)::int AS n FROM message_receipts WHERE ${OPEN}`;

const params = deliverValues;

/** Read-only, one index probe: has the agent any unacknowledged message on the board? (Most inbox polls: no.) */
export const anyOpen = async (db: Queryable, agent: string, board: string): Promise<boolean> =>
  (await row(db, `SELECT 1 FROM message_receipts WHERE ${OPEN} LIMIT 1`, { agent, board })) !== undefined;

/** Read-only: would delivering record anything? */
export async function deliveryWrites(db: Queryable, cmd: DeliverCommand): Promise<boolean> {
  if (cmd.peek) return false;
  const p = params(cmd);
  if (cmd.since !== undefined && (await row(db, `SELECT 1 FROM message_receipts WHERE ${AUTO_ACK} LIMIT 1`, p))) {
    return true;
  }
  return recordsSomething(await rows<ReceiptRow>(db, SELECTED, p), cmd.cursor);
}

export async function deliver(
  db: Queryable,
  cmd: DeliverCommand,
  tx: Tx | null,
): Promise<{ messages: Message[]; unread: number }> {
  const p = params(cmd);
  if (tx && cmd.since !== undefined) {
    const acked = await rows<{ message_id: string }>(
      tx.db,
      `UPDATE message_receipts SET acked_at = @now::bigint WHERE ${AUTO_ACK} RETURNING message_id`,
      { ...p, now: tx.now },
    );
    for (const a of acked) appendEvent(tx, ackedEvent(cmd.board, a.message_id, cmd.agent, true));
  }
  const shown = await rows<ReceiptRow>(db, SELECTED, p);
  if (tx && recordsSomething(shown, cmd.cursor)) {
    // COALESCE under the row lock: the first showing wins, a later one never overwrites it.
    await rows(
      tx.db,
      `UPDATE message_receipts SET delivered_at = COALESCE(delivered_at, @now::bigint),
              delivered_via = COALESCE(delivered_via, @via),
              shown_cursor = CASE WHEN @cursor::bigint IS NULL THEN shown_cursor ELSE COALESCE(shown_cursor, @cursor::bigint) END
       WHERE recipient = @agent AND message_id = ANY(@ids::text[])`,
      { agent: cmd.agent, ids: shown.map((r) => r.message_id), now: tx.now, via: cmd.via, cursor: cmd.cursor ?? null },
    );
  }
  const order = [...shown].sort(deliveryOrder).map((r) => r.message_id);
  const unread = (await row<{ n: number }>(db, UNREAD, p))?.n ?? 0;
  return { messages: await load(db, order, cmd.agent), unread };
}

export async function ackMessage(
  tx: Tx,
  cmd: { message_id: string; agent: string },
): Promise<Outcome<{ message: Message; acked: boolean }>> {
  const acked = await row<ReceiptRow>(
    tx.db,
    `UPDATE message_receipts SET acked_at = @now::bigint
     WHERE message_id = @id AND recipient = @agent AND acked_at IS NULL RETURNING *`,
    { now: tx.now, id: cmd.message_id, agent: cmd.agent },
  );
  if (!acked) {
    const known = await row(tx.db, 'SELECT 1 FROM message_receipts WHERE message_id = @id AND recipient = @agent', {
      id: cmd.message_id,
      agent: cmd.agent,
    });
    if (!known) return { ok: false, reason: 'not_found' };
  } else {
    appendEvent(tx, ackedEvent(acked.board, cmd.message_id, cmd.agent, false));
  }
  return { ok: true, message: (await load(tx.db, [cmd.message_id], cmd.agent))[0]!, acked: acked !== undefined };
}

export async function unreadCounts(
  db: Queryable,
  board: string | undefined,
): Promise<{ agent: string; unread: number }[]> {
  return rows(
    db,
    `SELECT recipient AS agent, count(*)::int AS unread FROM message_receipts
     WHERE acked_at IS NULL AND (@board::text IS NULL OR board = @board) GROUP BY recipient`,
    { board: board ?? null },
  );
}
