-- SPEC §14 "Verified done": the work tree's dirty paths when the claim began (a JSON array; NULL when not
-- noted). The twin of sqlite/migrations/0015-claim-dirty.sql.
ALTER TABLE tasks ADD COLUMN claim_dirty text;
