-- Notes on tasks and messages between agents (SPEC §12), the twin of sqlite/migrations/0004-messages.sql.
-- A note is append-only; its idempotency key is unique per board, like a task's (rule 7).
CREATE TABLE notes (
  id              text PRIMARY KEY,
  -- Insertion order (times tie within a millisecond).
  seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  task_id         text NOT NULL REFERENCES tasks (id),
  board           text NOT NULL,
  agent           text NOT NULL,
  text            text NOT NULL,
  at              bigint NOT NULL,
  idempotency_key text,
  payload_hash    text NOT NULL
);
CREATE UNIQUE INDEX notes_idempotency ON notes (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX notes_task ON notes (task_id, seq);

-- A message is private to its sender and its recipients: `to` is an agent or '*', and every
-- recipient (for '*', each agent known on the board when it was sent) has one receipt row.
CREATE TABLE messages (
  id              text PRIMARY KEY,
  seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  board           text NOT NULL,
  sender          text NOT NULL,
  to_agent        text NOT NULL,
  text            text NOT NULL,
  task_id         text REFERENCES tasks (id),
  ack_required    boolean NOT NULL,
  created_at      bigint NOT NULL,
  idempotency_key text,
  payload_hash    text NOT NULL
);
CREATE UNIQUE INDEX messages_idempotency ON messages (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender, board, seq);
CREATE INDEX messages_task ON messages (task_id) WHERE task_id IS NOT NULL;

-- Receipts only move forward: delivered_at/delivered_via are set once (the first showing),
-- shown_cursor once (the first inbox that listed it), acked_at once.
CREATE TABLE message_receipts (
  message_id    text NOT NULL REFERENCES messages (id),
  recipient     text NOT NULL,
  board         text NOT NULL,
  -- The message's seq: receipts list in the order messages were sent.
  msg_seq       bigint NOT NULL,
  created_at    bigint NOT NULL,
  ack_required  boolean NOT NULL,
  delivered_at  bigint,
  delivered_via text CHECK (delivered_via IN ('inbox', 'prime', 'stop', 'push')),
  shown_cursor  bigint,
  acked_at      bigint,
  PRIMARY KEY (message_id, recipient)
);
-- The inbox's read-only probe and its list: a recipient's unacknowledged messages on a board.
CREATE INDEX receipts_open ON message_receipts (recipient, board, msg_seq) WHERE acked_at IS NULL;
CREATE INDEX receipts_recipient ON message_receipts (recipient, board, msg_seq);
