/**
 * SPEC §10 "One decision, one round trip": may this agent edit these paths
 * now? Allow takes its auto-lock (or renews it) in the same transaction as
 * the look; deny names path, holder, lease end and task. Every hook form — a
 * command hook, Claude Code's `mcp_tool`, a shell edit seen afterwards —
 * asks this and only translates the answer into its client's words.
 */
import { AUTO_LOCK_LEASE_S, conflictReason } from '../edits/edit-decision.js';
import { DEFAULT_BOARD } from '../model.js';
import { type Ctx, defineOperation } from '../operation.js';
import { DecideEditOutput } from '../output-schemas.js';
import type { LockConflict } from '../ports.js';
import { DecideEditInput } from '../schemas.js';
import { newLockId } from '../shared/ids.js';
import { pendingElsewhere } from './pending-elsewhere.js';
import { lockConflictError, settleHolds } from './settle-holds.js';
import { trackTree } from './worktree-context.js';

export const decideEdit = defineOperation({
  name: 'decide_edit',
  summary:
    'Decide an edit in one call: allow (taking or renewing your auto-lock on the paths) or deny naming who holds them.',
  input: DecideEditInput,
  output: DecideEditOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const decide = () =>
      ctx.store.decideEdit({
        board,
        agent: input.agent,
        resources: input.paths,
        lease_ms: (input.lease_s ?? AUTO_LOCK_LEASE_S) * 1000,
        lock_id: newLockId(),
        session_id: ctx.session_id ?? null,
        worktree: input.worktree ?? null,
        outside: input.outside === true,
      });
    let d = await decide();
    // SPEC §14: a hold is checked with git when it blocks (merged or reverted work lets the edit through now).
    const held = d.decision === 'deny' && d.conflicts.some((c) => c.hold);
    // An agent editing another work tree's paths does not work there (SPEC §14): it is not recorded there.
    if (held || (d.decision === 'allow' && d.lock))
      await trackTree(ctx, board, input.agent, input.outside ? undefined : input.worktree);
    if (d.decision === 'deny' && held && ctx.git) {
      const trees = new Set(d.conflicts.flatMap((c) => (c.hold && c.worktree ? [c.worktree] : [])));
      // Decide again even when this look ended nothing: the keeper (or another daemon) may have ended the
      // hold between the refusal and the look, and the refusal would then be stale.
      await settleHolds(ctx, board, trees);
      d = await decide();
    }
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
        reason: await denyReason(ctx, d.conflicts, input.outside ? null : (input.worktree ?? null), now),
        conflicts: d.conflicts,
        warning: null,
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
      // SPEC §14: a path pending in another work tree with no hold there is allowed, with one line.
      warning: await pendingElsewhere(ctx, board, input.worktree, input.paths).catch(() => null),
    };
  },
});

/**
 * Why the edit is refused: plain locks in conflictReason's words; a change hold as lockConflictError says it,
 * with each holding work tree's branch, seen `from` the asking agent's work tree.
 */
async function denyReason(ctx: Ctx, conflicts: LockConflict[], from: string | null, now: number): Promise<string> {
  const holdReason = conflicts.some((c) => c.hold)
    ? await lockConflictError(ctx, { ok: false, reason: 'lock_conflict', conflicts }, from)
    : null;
  return holdReason ? `lock_conflict: ${holdReason.message}` : conflictReason(conflicts, now);
}
