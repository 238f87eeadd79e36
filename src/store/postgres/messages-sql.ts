/**
 * The statements of notes and messages (store/shared/notes.ts, messages.ts) PostgreSQL runs its own way: seq
 * comes from a sequence; a concurrent insert with the same key waits on the unique index, then does nothing
 * (the program looks again); lists of ids are arrays. COALESCE under the row lock: the first showing wins.
 */
import { insertReceiptsFrom, markShownOf, messagesSql, OPEN } from '../shared/messages-sql.js';

export const MESSAGES_SQL = messagesSql({
  insertNote: `INSERT INTO notes (id, task_id, board, agent, text, at, idempotency_key, payload_hash)
    VALUES (@id, @task_id, @board, @agent, @text, @at::bigint, @idempotency_key, @payload_hash)
    ON CONFLICT DO NOTHING RETURNING *`,
  insertMessage: `INSERT INTO messages (id, board, sender, to_agent, text, task_id, ack_required, created_at,
                     idempotency_key, payload_hash)
    VALUES (@id, @board, @sender, @to_agent, @text, @task_id, @ack_required, @now::bigint, @idempotency_key, @payload_hash)
    ON CONFLICT DO NOTHING RETURNING *`,
  insertReceipts: insertReceiptsFrom('r', 'unnest(@recipients::text[]) AS r'),
  messagesByIds: 'SELECT * FROM messages WHERE id = ANY(@ids::text[])',
  receiptsByIds: 'SELECT * FROM message_receipts WHERE message_id = ANY(@ids::text[])',
  selected: `SELECT * FROM message_receipts WHERE ${OPEN} AND (@all::boolean OR delivered_at IS NULL)
    AND (@ids::text[] IS NULL OR message_id = ANY(@ids::text[])) ORDER BY (delivered_at IS NOT NULL), msg_seq LIMIT @limit`,
  markShown: markShownOf('= ANY(@ids::text[])'),
});
