/**
 * The statements of notes and messages (store/shared/notes.ts, messages.ts) in PostgreSQL's dialect. seq comes
 * from a sequence; a concurrent insert with the same key waits on the unique index, then does nothing (the
 * program looks again). COALESCE under the row lock: the first showing of a receipt wins.
 */
import type { MessagesSql } from '../shared/messages.js';

const FILTERS = '(@board::text IS NULL OR m.board = @board) AND (@task_id::text IS NULL OR m.task_id = @task_id)';
const UNACKED = `(NOT @unacked::boolean
  OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))`;
const OPEN = 'recipient = @agent AND board = @board AND acked_at IS NULL';
const AUTO_ACK = `${OPEN} AND NOT ack_required AND shown_cursor IS NOT NULL AND shown_cursor <= @since::bigint`;

export const MESSAGES_SQL: MessagesSql = {
  taskById: 'SELECT * FROM tasks WHERE id = @id::text',
  insertNote: `INSERT INTO notes (id, task_id, board, agent, text, at, idempotency_key, payload_hash)
    VALUES (@id, @task_id, @board, @agent, @text, @at::bigint, @idempotency_key, @payload_hash)
    ON CONFLICT DO NOTHING RETURNING *`,
  noteByKey: 'SELECT * FROM notes WHERE board = @board::text AND idempotency_key = @key',
  notesOfTask: 'SELECT * FROM notes WHERE task_id = @id::text ORDER BY seq DESC LIMIT @limit',
  countNotes: 'SELECT count(*)::int AS n FROM notes WHERE task_id = @id::text',
  messageByKey: 'SELECT * FROM messages WHERE board = @board::text AND idempotency_key = @key',
  insertMessage: `INSERT INTO messages (id, board, sender, to_agent, text, task_id, ack_required, created_at,
                     idempotency_key, payload_hash)
    VALUES (@id, @board, @sender, @to_agent, @text, @task_id, @ack_required, @now::bigint, @idempotency_key, @payload_hash)
    ON CONFLICT DO NOTHING RETURNING *`,
  insertReceipts: `INSERT INTO message_receipts (message_id, recipient, board, msg_seq, created_at, ack_required)
    SELECT @message_id, r, @board, @msg_seq::bigint, @now::bigint, @ack_required FROM unnest(@recipients::text[]) AS r`,
  messagesByIds: 'SELECT * FROM messages WHERE id = ANY(@ids::text[])',
  receiptsByIds: 'SELECT * FROM message_receipts WHERE message_id = ANY(@ids::text[])',
  listAll: `SELECT m.id FROM messages m WHERE @agent::text IS NULL AND ${FILTERS} AND ${UNACKED}
    ORDER BY m.seq DESC LIMIT @limit`,
  listSent: `SELECT m.id FROM messages m WHERE m.sender = @agent AND ${FILTERS} AND ${UNACKED}
    ORDER BY m.seq DESC LIMIT @limit`,
  listReceived: `SELECT m.id FROM message_receipts r JOIN messages m ON m.id = r.message_id
    WHERE r.recipient = @agent AND ${FILTERS} AND (NOT @unacked::boolean OR r.acked_at IS NULL)
    ORDER BY r.msg_seq DESC LIMIT @limit`,
  anyOpen: `SELECT 1 FROM message_receipts WHERE ${OPEN} LIMIT 1`,
  anyAutoAck: `SELECT 1 FROM message_receipts WHERE ${AUTO_ACK} LIMIT 1`,
  selected: `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all::boolean OR delivered_at IS NULL)
    AND (@ids::text[] IS NULL OR message_id = ANY(@ids::text[])) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`,
  autoAck: `UPDATE message_receipts SET acked_at = @now::bigint WHERE ${AUTO_ACK} RETURNING message_id`,
  markShown: `UPDATE message_receipts SET delivered_at = COALESCE(delivered_at, @now::bigint),
      delivered_via = COALESCE(delivered_via, @via),
      shown_cursor = CASE WHEN @cursor::bigint IS NULL THEN shown_cursor ELSE COALESCE(shown_cursor, @cursor::bigint) END
    WHERE recipient = @agent AND message_id = ANY(@ids::text[])`,
  unread: `SELECT count(*)::int AS n FROM message_receipts WHERE ${OPEN}`,
  ack: `UPDATE message_receipts SET acked_at = @now::bigint
    WHERE message_id = @id AND recipient = @agent AND acked_at IS NULL RETURNING *`,
  receiptExists: 'SELECT 1 FROM message_receipts WHERE message_id = @id AND recipient = @agent',
  unreadCounts: `SELECT recipient AS agent, count(*)::int AS unread FROM message_receipts
    WHERE acked_at IS NULL AND (@board::text IS NULL OR board = @board) GROUP BY recipient`,
};
