/**
 * The statements of notes and messages (notes.ts, messages.ts) written once for both dialects: PostgreSQL's
 * text, which SQLite's runner runs without its casts (a boolean arrives there as 1 or 0). Each store adds its
 * own (`<store>/messages-sql.ts`): new rows' seq, and lists of ids.
 */
const FILTERS = '(@board::text IS NULL OR m.board = @board) AND (@task_id::text IS NULL OR m.task_id = @task_id)';
const UNACKED = `(NOT @unacked::boolean
  OR EXISTS (SELECT 1 FROM message_receipts r WHERE r.message_id = m.id AND r.acked_at IS NULL))`;
export const OPEN = 'recipient = @agent AND board = @board AND acked_at IS NULL';
const AUTO_ACK = `${OPEN} AND NOT ack_required AND shown_cursor IS NOT NULL AND shown_cursor <= @since::bigint`;

/**
 * A new message's receipts, one per recipient: the store says where it reads the list `@recipients` (`from`) and
 * what names a recipient there (`recipient`).
 */
export const insertReceiptsFrom = (recipient: string, from: string): string =>
  `INSERT INTO message_receipts (message_id, recipient, board, msg_seq, created_at, ack_required)
    SELECT @message_id, ${recipient}, @board, @msg_seq::bigint, @now::bigint, @ack_required FROM ${from}`;

/** Marks the agent's receipts of the messages `inIds` names (the store's list of ids) shown: the first showing wins. */
export const markShownOf = (
  inIds: string,
) => `UPDATE message_receipts SET delivered_at = COALESCE(delivered_at, @now::bigint),
      delivered_via = COALESCE(delivered_via, @via),
      shown_cursor = CASE WHEN @cursor::bigint IS NULL THEN shown_cursor ELSE COALESCE(shown_cursor, @cursor::bigint) END
    WHERE recipient = @agent AND message_id ${inIds}`;

export const MESSAGES_COMMON = {
  taskById: 'SELECT * FROM tasks WHERE id = @id::text',
  noteByKey: 'SELECT * FROM notes WHERE board = @board::text AND idempotency_key = @key',
  notesOfTask: 'SELECT * FROM notes WHERE task_id = @id::text ORDER BY seq DESC LIMIT @limit',
  countNotes: 'SELECT count(*)::int AS n FROM notes WHERE task_id = @id::text',
  messageByKey: 'SELECT * FROM messages WHERE board = @board::text AND idempotency_key = @key',
  listAll: `SELECT m.id FROM messages m WHERE @agent::text IS NULL AND ${FILTERS} AND ${UNACKED}
    ORDER BY m.seq DESC LIMIT @limit`,
  listSent: `SELECT m.id FROM messages m WHERE m.sender = @agent AND ${FILTERS} AND ${UNACKED}
    ORDER BY m.seq DESC LIMIT @limit`,
  listReceived: `SELECT m.id FROM message_receipts r JOIN messages m ON m.id = r.message_id
    WHERE r.recipient = @agent AND ${FILTERS} AND (NOT @unacked::boolean OR r.acked_at IS NULL)
    ORDER BY r.msg_seq DESC LIMIT @limit`,
  anyOpen: `SELECT 1 FROM message_receipts WHERE ${OPEN} LIMIT 1`,
  anyAutoAck: `SELECT 1 FROM message_receipts WHERE ${AUTO_ACK} LIMIT 1`,
  autoAck: `UPDATE message_receipts SET acked_at = @now::bigint WHERE ${AUTO_ACK} RETURNING message_id`,
  unread: `SELECT count(*)::int AS n FROM message_receipts WHERE ${OPEN}`,
  ack: `UPDATE message_receipts SET acked_at = @now::bigint
    WHERE message_id = @id AND recipient = @agent AND acked_at IS NULL RETURNING *`,
  receiptExists: 'SELECT 1 FROM message_receipts WHERE message_id = @id AND recipient = @agent',
  unreadCounts: `SELECT recipient AS agent, count(*)::int AS unread FROM message_receipts
    WHERE acked_at IS NULL AND (@board::text IS NULL OR board = @board) GROUP BY recipient`,
};

/** The statements of messages and notes, each in the store's dialect. */
export type MessagesSql = typeof MESSAGES_COMMON &
  Record<
    'insertNote' | 'insertMessage' | 'insertReceipts' | 'messagesByIds' | 'receiptsByIds' | 'selected' | 'markShown',
    string
  >;

/** A store's table of messages: the common statements and its own. */
export const messagesSql = (own: Omit<MessagesSql, keyof typeof MESSAGES_COMMON>): MessagesSql => ({
  ...MESSAGES_COMMON,
  ...own,
});
