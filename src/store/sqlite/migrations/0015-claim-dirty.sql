-- SPEC §14 "Verified done": the paths the agent touched include every path whose state in the work tree
-- changed since the claim began, so coord notes the work tree's dirty paths at the claim (a JSON array;
-- NULL when not noted: a claim from no work tree, or one made before this column).
ALTER TABLE tasks ADD COLUMN claim_dirty TEXT;
