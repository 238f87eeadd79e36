-- Notes on tasks and messages between agents (SPEC §12). Times are ms since the epoch.
-- A note is append-only; its idempotency key is unique per board, like a task's (rule 7).
CREATE TABLE notes (
  id              TEXT PRIMARY KEY,
  -- Insertion order (times tie within a millisecond).
  seq             INTEGER NOT NULL UNIQUE,
  task_id         TEXT NOT NULL REFERENCES tasks (id),
  board           TEXT NOT NULL,
  agent           TEXT NOT NULL,
  text            TEXT NOT NULL,
  at              INTEGER NOT NULL,
  idempotency_key TEXT,
  payload_hash    TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX notes_idempotency ON notes (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX notes_task ON notes (task_id, seq);

-- A message is private to its sender and its recipients: `to` is an agent or '*', and every
-- recipient (for '*', each agent known on the board when it was sent) has one receipt row.
CREATE TABLE messages (
  id              TEXT PRIMARY KEY,
  seq             INTEGER NOT NULL UNIQUE,
  board           TEXT NOT NULL,
  sender          TEXT NOT NULL,
  to_agent        TEXT NOT NULL,
  text            TEXT NOT NULL,
  task_id         TEXT REFERENCES tasks (id),
  ack_required    INTEGER NOT NULL CHECK (ack_required IN (0, 1)),
  created_at      INTEGER NOT NULL,
  idempotency_key TEXT,
  payload_hash    TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX messages_idempotency ON messages (board, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender, board, seq);
CREATE INDEX messages_task ON messages (task_id) WHERE task_id IS NOT NULL;

-- Receipts only move forward: delivered_at/delivered_via are set once (the first showing),
-- shown_cursor once (the first inbox that listed it), acked_at once.
CREATE TABLE message_receipts (
  message_id    TEXT NOT NULL REFERENCES messages (id),
  recipient     TEXT NOT NULL,
  board         TEXT NOT NULL,
  -- The message's seq: receipts list in the order messages were sent.
  msg_seq       INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  ack_required  INTEGER NOT NULL CHECK (ack_required IN (0, 1)),
  delivered_at  INTEGER,
  delivered_via TEXT CHECK (delivered_via IN ('inbox', 'prime', 'stop', 'push')),
  shown_cursor  INTEGER,
  acked_at      INTEGER,
  PRIMARY KEY (message_id, recipient)
) STRICT;
-- The inbox's read-only probe and its list: a recipient's unacknowledged messages on a board.
CREATE INDEX receipts_open ON message_receipts (recipient, board, msg_seq) WHERE acked_at IS NULL;
CREATE INDEX receipts_recipient ON message_receipts (recipient, board, msg_seq);
