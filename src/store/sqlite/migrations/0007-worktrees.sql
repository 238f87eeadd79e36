-- SPEC §14, changes across work trees.
--
-- A task's claim remembers the work tree it was made from and that tree's
-- HEAD then; a completed task keeps its change record (JSON), fixed at the
-- first submit.
ALTER TABLE tasks ADD COLUMN claim_worktree TEXT;
ALTER TABLE tasks ADD COLUMN claim_head TEXT;
-- The claim those two belong to: a later claim without a work tree must not inherit them.
ALTER TABLE tasks ADD COLUMN claim_tree_of TEXT;
ALTER TABLE tasks ADD COLUMN change_record TEXT;

-- A lock taken from a work tree names it. When such a lock ends it stays, as a
-- change hold of that work tree (held_since set, its lease far in the future,
-- no claim or session), until its paths are no longer pending there.
ALTER TABLE locks ADD COLUMN worktree TEXT;
ALTER TABLE locks ADD COLUMN held_since INTEGER;
ALTER TABLE locks ADD COLUMN hold_task TEXT;
CREATE INDEX locks_holds ON locks (board) WHERE held_since IS NOT NULL;

-- What coord knows of a board's repository: where it is, and the branch work is merged into.
CREATE TABLE board_repos (
  board      TEXT PRIMARY KEY,
  repo       TEXT NOT NULL,
  target     TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

-- Who works where: each agent's last known work tree, branch and HEAD on a board.
CREATE TABLE agent_worktrees (
  board    TEXT NOT NULL,
  agent    TEXT NOT NULL,
  worktree TEXT NOT NULL,
  branch   TEXT,
  head     TEXT,
  seen_at  INTEGER NOT NULL,
  PRIMARY KEY (board, agent)
) STRICT;
