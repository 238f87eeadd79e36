-- Issue 33 (SPEC §15 "Flaky checks"): a merge whose check passed only on a retry (--check-retries).
ALTER TABLE integrations ADD COLUMN flaky BOOLEAN NOT NULL DEFAULT false;
