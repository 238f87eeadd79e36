-- Issue 36: claim-next orders by priority, created_at, id; tasks_ready ended at created_at, so every claim-next
-- (and its read-only peek) sorted each (priority, created_at) group by id in a temporary b-tree ("USE TEMP
-- B-TREE FOR LAST TERM OF ORDER BY"). With id in the index the first entry is the answer, as in PostgreSQL's
-- tasks_ready (its 0003). Measured on the bench's 100k board: the peek ≈ 40 % cheaper.
DROP INDEX tasks_ready;
CREATE INDEX tasks_ready ON tasks (board, priority, created_at, id) WHERE state = 'queued' AND blockers_open = 0;
