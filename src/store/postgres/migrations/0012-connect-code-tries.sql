-- Issue 34: a one-time consent code is spent after 5 wrong answers at the consent form (SPEC §16).
-- The twin of sqlite/migrations/0012-connect-code-tries.sql.
ALTER TABLE connect_codes ADD COLUMN wrong integer NOT NULL DEFAULT 0;
