-- The integration queue (SPEC §15). Times are ms since the epoch.
-- One row per completed task with commits, from the moment it is queued; `none` is the absence of a row.
CREATE TABLE integrations (
  task_id    TEXT PRIMARY KEY REFERENCES tasks (id),
  board      TEXT NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('pending', 'awaiting_review', 'merged', 'conflict', 'check_failed', 'blocked')),
  reason     TEXT,
  -- merged: the target's new tip, or the head already in it (the change record's `merged_as`).
  commit_sha TEXT,
  -- From the change record (SPEC §14): where the work was done and what to merge.
  worktree   TEXT,
  branch     TEXT,
  head       TEXT NOT NULL,
  -- The head the last result was about: a conflict is tried again once the branch moves past it.
  tried_head TEXT,
  target     TEXT,
  approved   INTEGER NOT NULL DEFAULT 0 CHECK (approved IN (0, 1)),
  followup   TEXT,
  -- Completion order; seq breaks ties within a millisecond.
  queued_at  INTEGER NOT NULL,
  seq        INTEGER NOT NULL UNIQUE,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX integrations_open ON integrations (board, seq) WHERE state <> 'merged';
CREATE INDEX integrations_state ON integrations (state, seq);

-- One integrator per board at a time, fenced like a claim: slot_id names the holder's tenure.
CREATE TABLE integration_slots (
  board       TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  slot_id     TEXT NOT NULL,
  lease_until INTEGER NOT NULL
) STRICT;
