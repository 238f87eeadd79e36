-- Issue 33 (SPEC §15 "Flaky checks"): a merge whose check passed only on a retry (--check-retries).
ALTER TABLE integrations ADD COLUMN flaky INTEGER NOT NULL DEFAULT 0 CHECK (flaky IN (0, 1));
