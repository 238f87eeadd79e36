import type { AgentSeen } from '../model.js';
import { defineOperation } from '../operation.js';
import { AgentsOutput } from '../output-schemas.js';
import { AgentsInput } from '../schemas.js';
import { firstOf } from '../shared/bounded.js';

/** An agent is active if it holds something or was seen in the last five minutes. */
export const ACTIVE_WINDOW_MS = 5 * 60_000;
const HISTORY_MS = 24 * 3600_000;

export const listAgents = defineOperation({
  name: 'list_agents',
  summary: 'Agents seen on the board lately, with what each holds.',
  input: AgentsInput,
  output: AgentsOutput,
  async run(ctx, input) {
    const now = ctx.clock.now();
    const act = await ctx.store.activity({ board: input.board, since_ms: HISTORY_MS });
    const byName = new Map<string, AgentSeen>();
    const get = (name: string) => {
      let a = byName.get(name);
      if (!a) {
        a = { name, active: false, last_seen: new Date(0).toISOString(), claims: [], locks: [] };
        byName.set(name, a);
      }
      return a;
    };
    const seen = (name: string, at: string) => {
      const a = get(name);
      if (at > a.last_seen) a.last_seen = at;
    };
    for (const a of act.agents) seen(a.name, a.last_seen);
    for (const p of ctx.presence.list(input.board)) seen(p.name, new Date(p.at).toISOString());
    for (const c of act.claims) get(c.agent).claims.push(c.task_id);
    // A change hold is its work tree's, not a sign its agent is still at work (SPEC §14).
    for (const l of await ctx.store.listLocks(input.board)) if (!l.hold) get(l.agent).locks.push(...l.resources);
    if (input.board) {
      for (const t of await ctx.store.agentTrees(input.board, now - HISTORY_MS)) {
        const a = byName.get(t.agent);
        if (a) Object.assign(a, { worktree: t.worktree, branch: t.branch });
      }
    }
    for (const u of await ctx.store.unreadCounts(input.board)) {
      const a = byName.get(u.agent);
      if (a) a.unread = u.unread;
    }
    for (const a of byName.values()) settle(a, now);
    // Active first, then the most recently seen; the answer carries the first ANSWER_LIST_MAX and counts.
    const all = [...byName.values()].sort(
      (a, b) => Number(b.active) - Number(a.active) || b.last_seen.localeCompare(a.last_seen),
    );
    const agents = firstOf(all).map(boundHoldings);
    return all.length > agents.length ? { agents, total: all.length } : { agents };
  },
});

/** An agent is active while it holds a claim or a lock, or was seen in the last ACTIVE_WINDOW_MS. */
function settle(a: AgentSeen, now: number): void {
  a.unread ??= 0;
  a.active = a.claims.length > 0 || a.locks.length > 0 || now - Date.parse(a.last_seen) < ACTIVE_WINDOW_MS;
}

function boundHoldings(a: AgentSeen): AgentSeen {
  const out = { ...a, claims: firstOf(a.claims), locks: firstOf(a.locks) };
  if (a.claims.length > out.claims.length) out.claims_total = a.claims.length;
  if (a.locks.length > out.locks.length) out.locks_total = a.locks.length;
  return out;
}
