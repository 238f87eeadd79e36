/**
 * The statements of notes and messages (store/shared/notes.ts, messages.ts) in SQLite's dialect. A new seq is
 * the next number, safe inside the write transaction (BEGIN IMMEDIATE: one writer at a time); lists of ids
 * arrive as JSON text.
 */
import type { MessagesSql } from '../shared/messages.js';

const IN_IDS = '(SELECT value FROM json_each(@ids))';
const FILTERS = '(@board IS NULL OR m.board = @board) AND (@task_id IS NULL OR m.task_id = @task_id)';
const UNACKED =
  '(@unacked = 0 OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))';
const OPEN = 'recipient = @agent AND board = @board AND acked_at IS NULL';
const AUTO_ACK = `${OPEN} AND ack_required = 0 AND shown_cursor IS NOT NULL AND shown_cursor <= @since`;

export const MESSAGES_SQL: MessagesSql = {
  taskById: 'SELECT * FROM tasks WHERE id = @id',
  insertNote: `INSERT INTO notes (id, seq, task_id, board, agent, text, at, idempotency_key, payload_hash)
    VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM notes), @task_id, @board, @agent, @text, @at,
            @idempotency_key, @payload_hash) ON CONFLICT (id) DO NOTHING RETURNING *`,
  noteByKey: 'SELECT * FROM notes WHERE board = @board AND idempotency_key = @key',
  notesOfTask: 'SELECT * FROM notes WHERE task_id = @id ORDER BY seq DESC LIMIT @limit',
  countNotes: 'SELECT count(*) AS n FROM notes WHERE task_id = @id',
  messageByKey: 'SELECT * FROM messages WHERE board = @board AND idempotency_key = @key',
  insertMessage: `INSERT INTO messages (id, seq, board, sender, to_agent, text, task_id, ack_required, created_at,
                     idempotency_key, payload_hash)
    VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages), @board, @sender, @to_agent, @text, @task_id,
            @ack_required, @now, @idempotency_key, @payload_hash)
    ON CONFLICT (id) DO NOTHING RETURNING *`,
  insertReceipts: `INSERT INTO message_receipts (message_id, recipient, board, msg_seq, created_at, ack_required)
    SELECT @message_id, value, @board, @msg_seq, @now, @ack_required FROM json_each(@recipients)`,
  messagesByIds: `SELECT * FROM messages WHERE id IN ${IN_IDS}`,
  receiptsByIds: `SELECT * FROM message_receipts WHERE message_id IN ${IN_IDS}`,
  listAll: `SELECT m.id FROM messages m WHERE ${FILTERS} AND ${UNACKED} ORDER BY m.seq DESC LIMIT @limit`,
  listSent: `SELECT m.id FROM messages m WHERE m.sender = @agent AND ${FILTERS} AND ${UNACKED}
    ORDER BY m.seq DESC LIMIT @limit`,
  listReceived: `SELECT m.id FROM message_receipts r JOIN messages m ON m.id = r.message_id
    WHERE r.recipient = @agent AND ${FILTERS} AND (@unacked = 0 OR r.acked_at IS NULL)
    ORDER BY r.msg_seq DESC LIMIT @limit`,
  anyOpen: `SELECT 1 FROM message_receipts WHERE ${OPEN} LIMIT 1`,
  anyAutoAck: `SELECT 1 FROM message_receipts WHERE ${AUTO_ACK} LIMIT 1`,
  selected: `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all = 1 OR delivered_at IS NULL)
    AND (@ids IS NULL OR message_id IN ${IN_IDS}) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`,
  autoAck: `UPDATE message_receipts SET acked_at = @now WHERE ${AUTO_ACK} RETURNING message_id`,
  markShown: `UPDATE message_receipts SET delivered_at = COALESCE(delivered_at, @now),
      delivered_via = COALESCE(delivered_via, @via),
      shown_cursor = CASE WHEN @cursor IS NULL THEN shown_cursor ELSE COALESCE(shown_cursor, @cursor) END
    WHERE recipient = @agent AND message_id IN ${IN_IDS}`,
  unread: `SELECT count(*) AS n FROM message_receipts WHERE ${OPEN}`,
  ack: `UPDATE message_receipts SET acked_at = @now
    WHERE message_id = @id AND recipient = @agent AND acked_at IS NULL RETURNING *`,
  receiptExists: 'SELECT 1 FROM message_receipts WHERE message_id = @id AND recipient = @agent',
  unreadCounts: `SELECT recipient AS agent, count(*) AS unread FROM message_receipts
    WHERE acked_at IS NULL AND (@board IS NULL OR board = @board) GROUP BY recipient`,
};
