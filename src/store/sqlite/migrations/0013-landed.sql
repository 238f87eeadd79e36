-- Issue 31 (SPEC §11): a blocker counts once it has LANDED — completed and, where it has commits, merged.
-- landed_at: when this task's dependents counted it done (their blockers_open went down once); NULL until then.
ALTER TABLE tasks ADD COLUMN landed_at INTEGER;
-- Work completed before this rule already counted on its dependents (the old rule): it has landed.
UPDATE tasks SET landed_at = updated_at WHERE state = 'completed';
-- The rule a board's readiness follows: landed (SPEC §11), or completed (coord target BRANCH --ready-on completed).
ALTER TABLE board_repos ADD COLUMN ready_on TEXT NOT NULL DEFAULT 'landed' CHECK (ready_on IN ('landed', 'completed'));
