-- Dependencies, parents and plans (SPEC §11), the twin of sqlite/migrations/0003-deps.sql.
-- A task waits for its blockers: the edges are rows of task_deps (the reverse
-- lookup a completion needs), and the task row keeps the same ids in order
-- (blocked_by) plus how many of them are not completed yet (blockers_open).
-- Claims require blockers_open = 0 in the claiming UPDATE's own predicate, and
-- the completion that ends a task's last open blocker moves the counter to 0
-- in the same transaction (holding the dependent's row lock).
ALTER TABLE tasks ADD COLUMN blocked_by text[] NOT NULL DEFAULT '{}';
ALTER TABLE tasks ADD COLUMN blockers_open integer NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN parent text REFERENCES tasks (id);
ALTER TABLE tasks ADD COLUMN children_total integer NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN children_completed integer NOT NULL DEFAULT 0;

CREATE TABLE task_deps (
  task_id    text NOT NULL REFERENCES tasks (id),
  blocker_id text NOT NULL REFERENCES tasks (id),
  PRIMARY KEY (task_id, blocker_id)
);
-- A completion finds the tasks it was blocking.
CREATE INDEX task_deps_blocker ON task_deps (blocker_id, task_id);

-- claim-next walks only ready rows: half a queue of blocked tasks costs it nothing.
CREATE INDEX tasks_ready ON tasks (board, priority, created_at, id) WHERE state = 'queued' AND blockers_open = 0;
-- The inbox header counts the blocked ones.
CREATE INDEX tasks_blocked ON tasks (board) WHERE state = 'queued' AND blockers_open > 0;
CREATE INDEX tasks_parent ON tasks (parent, created_at, id) WHERE parent IS NOT NULL;

-- A plan posted with an idempotency_key: the same key and payload answer the same tasks (rule 7).
CREATE TABLE plans (
  board           text NOT NULL,
  idempotency_key text NOT NULL,
  payload_hash    text NOT NULL,
  -- {ref: task id}
  refs            jsonb NOT NULL,
  created_at      bigint NOT NULL,
  PRIMARY KEY (board, idempotency_key)
);
