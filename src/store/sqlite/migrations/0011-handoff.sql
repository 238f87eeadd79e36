-- Issue 26: who handed a task over (release --to): it may still see the task it gave away (visibleTo).
-- After 0010-ended-locks (issue 21).
ALTER TABLE tasks ADD COLUMN handed_by TEXT;
