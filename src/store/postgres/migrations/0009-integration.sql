-- The integration queue (SPEC §15), the twin of sqlite/migrations/0008-integration.sql. Times are ms since the epoch.
-- One row per completed task with commits, from the moment it is queued; `none` is the absence of a row.
CREATE TABLE integrations (
  task_id    text PRIMARY KEY REFERENCES tasks (id),
  board      text NOT NULL,
  state      text NOT NULL CHECK (state IN ('pending', 'awaiting_review', 'merged', 'conflict', 'check_failed', 'blocked')),
  reason     text,
  -- merged: the target's new tip, or the head already in it (the change record's `merged_as`).
  commit_sha text,
  -- From the change record (SPEC §14): where the work was done and what to merge.
  worktree   text,
  branch     text,
  head       text NOT NULL,
  -- The head the last result was about: a conflict is tried again once the branch moves past it.
  tried_head text,
  target     text,
  approved   boolean NOT NULL DEFAULT false,
  followup   text,
  -- Completion order.
  queued_at  bigint NOT NULL,
  seq        bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  updated_at bigint NOT NULL
);
CREATE INDEX integrations_open ON integrations (board, seq) WHERE state <> 'merged';
CREATE INDEX integrations_state ON integrations (state, seq);

-- One integrator per board at a time, fenced like a claim: slot_id names the holder's tenure.
CREATE TABLE integration_slots (
  board       text PRIMARY KEY,
  holder      text NOT NULL,
  slot_id     text NOT NULL,
  lease_until bigint NOT NULL
);
