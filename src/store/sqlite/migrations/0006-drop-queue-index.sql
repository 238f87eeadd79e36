-- tasks_queue (board, priority, created_at) WHERE state = 'queued' served the claim and the inbox until
-- dependencies came (0003): since then every statement that looks for queued tasks asks for ready ones
-- (blockers_open = 0, tasks_ready) or blocked ones (tasks_blocked), and no query plan uses it (issue 15:
-- EXPLAIN QUERY PLAN of every statement the store prepares, with and without it, is the same). It still cost
-- every post and every claim one more page written at COMMIT.
DROP INDEX tasks_queue;
