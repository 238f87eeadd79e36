-- Every write appends an event, so each page the events table dirties is written again at every commit
-- (issue 15: ~35 % of an in-process claim was page writes at COMMIT). Three of them were not needed:
-- - AUTOINCREMENT kept a sqlite_sequence row (one more page per commit) to never reuse a deleted seq;
--   events are never deleted, so a plain INTEGER PRIMARY KEY (max + 1) hands out the same numbers.
-- - events_agent (agent, at) served only the "who was here in the last day" query, which now reads the
--   tail of the table by seq and stops at the window's start (read.ts: activity).
-- - events_board (board, seq): every reader asks for events after a cursor (`seq > @since`), which the
--   primary key already finds; the board is a filter on those few rows.
CREATE TABLE events_0005 (
  seq     INTEGER PRIMARY KEY,
  board   TEXT NOT NULL,
  type    TEXT NOT NULL,
  task_id TEXT,
  lock_id TEXT,
  agent   TEXT,
  at      INTEGER NOT NULL,
  data    TEXT NOT NULL DEFAULT '{}'
) STRICT;
INSERT INTO events_0005 (seq, board, type, task_id, lock_id, agent, at, data)
  SELECT seq, board, type, task_id, lock_id, agent, at, data FROM events ORDER BY seq;
DROP TABLE events;
ALTER TABLE events_0005 RENAME TO events;
