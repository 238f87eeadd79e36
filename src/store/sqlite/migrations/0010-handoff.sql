-- Issue 26: who handed a task over (release --to): it may still see the task it gave away (visibleTo).
-- Branch r21 also adds a 0010 (ended-locks): whichever merges second renumbers (the migrator refuses two 0010s).
ALTER TABLE tasks ADD COLUMN handed_by TEXT;
