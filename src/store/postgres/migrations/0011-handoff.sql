-- Issue 26: who handed a task over (release --to): it may still see the task it gave away (visibleTo).
-- The twin of sqlite/migrations/0011-handoff.sql.
ALTER TABLE tasks ADD COLUMN handed_by text;
