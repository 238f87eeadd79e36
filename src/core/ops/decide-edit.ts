/**
 * SPEC §10 "One decision, one round trip": may this agent edit these paths
 * now? Allow takes its auto-lock (or renews it) in the same transaction as
 * the look; deny names path, holder, lease end and task. Every hook form — a
 * command hook, Claude Code's `mcp_tool`, a shell edit seen afterwards —
 * asks this and only translates the answer into its client's words.
 */
import { AUTO_LOCK_LEASE_S, conflictReason } from '../edit-decision.js';
import { newLockId } from '../ids.js';
import { DEFAULT_BOARD } from '../model.js';
import { defineOperation } from '../operation.js';
import { DecideEditInput, DecideEditOutput } from '../schemas.js';

export const decideEdit = defineOperation({
  name: 'decide_edit',
  summary:
    'Decide an edit in one call: allow (taking or renewing your auto-lock on the paths) or deny naming who holds them.',
  input: DecideEditInput,
  output: DecideEditOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const d = await ctx.store.decideEdit({
      board,
      agent: input.agent,
      resources: input.paths,
      lease_ms: (input.lease_s ?? AUTO_LOCK_LEASE_S) * 1000,
      lock_id: newLockId(),
      session_id: ctx.session_id ?? null,
      worktree: input.worktree ?? null,
    });
    const now = ctx.clock.now();
    ctx.presence.touch(input.agent, board, now);
    const base = { board, resources: input.paths };
    if (d.decision === 'deny') {
      return {
        ...base,
        decision: 'deny' as const,
        lock_id: null,
        renewed: [],
        lease_until: null,
        reason: conflictReason(d.conflicts, now),
        conflicts: d.conflicts,
      };
    }
    return {
      ...base,
      decision: 'allow' as const,
      lock_id: d.lock?.lock_id ?? null,
      renewed: d.renewed,
      lease_until: d.lease_until,
      reason: null,
      conflicts: [],
    };
  },
});
