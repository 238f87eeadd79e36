-- Issue 34: a one-time consent code is spent after 5 wrong answers at the consent form (SPEC §16).
-- After 0011-handoff (issue 26).
ALTER TABLE connect_codes ADD COLUMN wrong INTEGER NOT NULL DEFAULT 0;
