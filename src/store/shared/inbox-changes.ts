import type { InboxView } from '../../core/ports.js';
import { type TaskRow, toTask } from './rows.js';

const rank = (t: TaskRow, agent: string): number => (t.for_agent === agent ? 0 : 1);

/**
 * The inbox with `since`, from the rows that changed after the cursor (both
 * stores read those rows their own way): the agent's changed claims, the
 * changed tasks it may claim in inbox order, and what left its view.
 */
export function changedView(
  changed: TaskRow[],
  agent: string,
  now: number,
  limit: number,
  cursor: number,
): Omit<InboxView, 'blocked'> {
  const claims = changed.filter((t) => t.state === 'claimed' && t.claimed_by === agent);
  // SPEC §11: a blocked task is neither listed nor reported gone (the header counts it).
  const blocked = (t: TaskRow) => t.state === 'queued' && t.blockers_open > 0;
  const open = changed
    .filter(
      (t) =>
        t.state === 'queued' && !blocked(t) && t.expires_at > now && (t.for_agent === null || t.for_agent === agent),
    )
    .sort((a, b) => rank(a, agent) - rank(b, agent) || a.priority - b.priority || a.created_at - b.created_at);
  const shown = new Set([...claims, ...open].map((t) => t.id));
  const gone = changed
    .filter(
      (t) =>
        !shown.has(t.id) && !blocked(t) && (t.for_agent === null || t.for_agent === agent || t.created_by === agent),
    )
    .map((t) => ({ id: t.id, state: t.state, claimed_by: t.claimed_by }));
  return {
    cursor,
    claims: claims.map(toTask),
    tasks: open.slice(0, limit).map(toTask),
    more: Math.max(0, open.length - limit),
    gone,
  };
}
