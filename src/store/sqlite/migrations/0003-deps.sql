-- Dependencies, parents and plans (SPEC §11).
-- A task waits for its blockers: the edges are rows of task_deps (the reverse
-- lookup a completion needs), and the task row keeps the same ids in order
-- (blocked_by, JSON text) plus how many of them are not completed yet
-- (blockers_open). Claims require blockers_open = 0 in the claiming UPDATE's
-- own predicate, and the completion that ends a task's last open blocker
-- moves the counter to 0 in the same transaction.
ALTER TABLE tasks ADD COLUMN blocked_by TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN blockers_open INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN parent TEXT REFERENCES tasks (id);
ALTER TABLE tasks ADD COLUMN children_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN children_completed INTEGER NOT NULL DEFAULT 0;

CREATE TABLE task_deps (
  task_id    TEXT NOT NULL REFERENCES tasks (id),
  blocker_id TEXT NOT NULL REFERENCES tasks (id),
  PRIMARY KEY (task_id, blocker_id)
) STRICT, WITHOUT ROWID;
-- A completion finds the tasks it was blocking.
CREATE INDEX task_deps_blocker ON task_deps (blocker_id, task_id);

-- claim-next walks only ready rows: half a queue of blocked tasks costs it nothing.
CREATE INDEX tasks_ready ON tasks (board, priority, created_at) WHERE state = 'queued' AND blockers_open = 0;
-- The inbox header counts the blocked ones.
CREATE INDEX tasks_blocked ON tasks (board) WHERE state = 'queued' AND blockers_open > 0;
CREATE INDEX tasks_parent ON tasks (parent, created_at, id) WHERE parent IS NOT NULL;

-- A plan posted with an idempotency_key: the same key and payload answer the same tasks (rule 7).
CREATE TABLE plans (
  board           TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  payload_hash    TEXT NOT NULL,
  -- {ref: task id} as JSON text.
  refs            TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (board, idempotency_key)
) STRICT;
