-- SPEC §14, changes across work trees: the twin of sqlite/migrations/0007-worktrees.sql.
ALTER TABLE tasks ADD COLUMN claim_worktree text;
ALTER TABLE tasks ADD COLUMN claim_head text;
-- The claim those two belong to: a later claim without a work tree must not inherit them.
ALTER TABLE tasks ADD COLUMN claim_tree_of text;
ALTER TABLE tasks ADD COLUMN change_record text;

-- A lock taken from a work tree names it; when it ends it stays as a change hold
-- (held_since set, lease far in the future) until its paths are no longer pending there.
ALTER TABLE locks ADD COLUMN worktree text;
ALTER TABLE locks ADD COLUMN held_since bigint;
ALTER TABLE locks ADD COLUMN hold_task text;
CREATE INDEX locks_holds ON locks (board) WHERE held_since IS NOT NULL;

CREATE TABLE board_repos (
  board      text PRIMARY KEY,
  repo       text NOT NULL,
  target     text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE agent_worktrees (
  board    text NOT NULL,
  agent    text NOT NULL,
  worktree text NOT NULL,
  branch   text,
  head     text,
  seen_at  bigint NOT NULL,
  PRIMARY KEY (board, agent)
);
