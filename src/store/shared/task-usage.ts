/**
 * SPEC §18 "Budgets": a task's recorded usage, summed over its tries, as both stores keep it (tasks.run_usage,
 * migration 0016): the sum plus the exits already counted (`agent#attempt`), so a repeated report adds once.
 */
import type { Usage } from '../../core/runs/supervision.js';

interface Stored extends Usage {
  runs: string[];
}

/** The stored text after adding one exited run's usage, or null when that run was counted already. */
export function addedUsage(prev: string | null, key: string, u: Usage): string | null {
  const s: Stored = prev ? (JSON.parse(prev) as Stored) : { input_tokens: 0, output_tokens: 0, wall_s: 0, runs: [] };
  if (s.runs.includes(key)) return null;
  const cost = s.cost_usd === undefined && u.cost_usd === undefined ? undefined : (s.cost_usd ?? 0) + (u.cost_usd ?? 0);
  const next: Stored = {
    input_tokens: s.input_tokens + u.input_tokens,
    output_tokens: s.output_tokens + u.output_tokens,
    ...(cost === undefined ? {} : { cost_usd: cost }),
    wall_s: s.wall_s + u.wall_s,
    runs: [...s.runs, key],
  };
  return JSON.stringify(next);
}

/** The task's usage as its JSON shows it (without the counted runs); undefined when none recorded. */
export function taskUsage(stored: string | null | undefined): Usage | undefined {
  if (!stored) return undefined;
  const { runs: _runs, ...u } = JSON.parse(stored) as Stored;
  return u;
}
