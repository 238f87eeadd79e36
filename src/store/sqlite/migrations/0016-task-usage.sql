-- SPEC §18 "Budgets": the tokens, cost and wall time a task's supervised runs used, summed over its tries.
-- JSON text {input_tokens, output_tokens, cost_usd?, wall_s, runs: ["agent#attempt", …]} (runs: the exits counted,
-- so a repeated report adds once); NULL until a run of it exited with usage.
ALTER TABLE tasks ADD COLUMN run_usage TEXT;
