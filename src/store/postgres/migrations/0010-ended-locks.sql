-- SPEC §14, the twin of sqlite/migrations/0010-ended-locks.sql: why a work tree's lock ended, kept until git
-- has said which of its keys are pending (those become the hold; the rest end for this reason).
ALTER TABLE locks ADD COLUMN ended_for text;
