/**
 * The statements of notes and messages (store/shared/notes.ts, messages.ts) SQLite runs its own way: a new seq
 * is the next number, safe inside the write transaction (BEGIN IMMEDIATE: one writer at a time); lists of ids
 * arrive as JSON text.
 */
import { insertReceiptsFrom, markShownOf, messagesSql, OPEN } from '../shared/messages-sql.js';

const IN_IDS = '(SELECT value FROM json_each(@ids))';

export const MESSAGES_SQL = messagesSql({
  insertNote: `INSERT INTO notes (id, seq, task_id, board, agent, text, at, idempotency_key, payload_hash)
    VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM notes), @task_id, @board, @agent, @text, @at,
            @idempotency_key, @payload_hash) ON CONFLICT (id) DO NOTHING RETURNING *`,
  insertMessage: `INSERT INTO messages (id, seq, board, sender, to_agent, text, task_id, ack_required, created_at,
                     idempotency_key, payload_hash)
    VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages), @board, @sender, @to_agent, @text, @task_id,
            @ack_required, @now, @idempotency_key, @payload_hash)
    ON CONFLICT (id) DO NOTHING RETURNING *`,
  insertReceipts: insertReceiptsFrom('value', 'json_each(@recipients)'),
  messagesByIds: `SELECT * FROM messages WHERE id IN ${IN_IDS}`,
  receiptsByIds: `SELECT * FROM message_receipts WHERE message_id IN ${IN_IDS}`,
  selected: `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all = 1 OR delivered_at IS NULL)
    AND (@ids IS NULL OR message_id IN ${IN_IDS}) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`,
  markShown: markShownOf(`IN ${IN_IDS}`),
});
