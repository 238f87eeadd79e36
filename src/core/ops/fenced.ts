/** heartbeat, release and submit: each presents the claim_id, the fencing token (SPEC rule 5). */

import { unwrap } from '../board/outcomes.js';
import { CoordError } from '../errors.js';
import { describeIntegration } from '../integration/describe-integration.js';
import { type Ctx, defineOperation } from '../operation.js';
import { HeartbeatOutput, SubmitOutput, TaskEnvelope } from '../output-schemas.js';
import { HeartbeatInput, ReleaseInput, SubmitInput } from '../schemas.js';
import { resultHash } from '../shared/canonical-json.js';
import type { WorkTreeFacts } from '../worktrees/git-port.js';
import type { ClaimTree } from '../worktrees/worktree-ports.js';
import { type Verified, verifyDone } from './change-record.js';
import { settleEnded } from './settle-holds.js';
import { noteWorkLeft } from './work-left.js';
import { trackTree } from './worktree-context.js';

export const heartbeat = defineOperation({
  name: 'heartbeat',
  summary: 'Extend your lease on a claimed task (default: the lease you claimed with).',
  input: HeartbeatInput,
  output: HeartbeatOutput,
  async run(ctx, input) {
    // A claim not yet told its work tree (a supervisor's, SPEC §18): git locates the tree while the lease is
    // written — this heartbeat is on the path from a ready task to its agent started.
    const known = input.worktree ? await ctx.store.claimTree(input.task_id) : null;
    const telling = input.worktree !== undefined && known?.claim_id !== input.claim_id;
    const located = telling && ctx.git ? ctx.git.locate(input.worktree as string).catch(() => null) : null;
    const outcome = await ctx.store.heartbeat({
      task_id: input.task_id,
      claim_id: input.claim_id,
      lease_ms: input.lease_s === undefined ? null : input.lease_s * 1000,
    });
    if (outcome.ok && telling && located) await recordTree(ctx, input, known, located);
    return unwrap(outcome, input.task_id);
  },
});

export const releaseTask = defineOperation({
  name: 'release_task',
  summary: 'Give a claimed task back to the queue; with `to`, hand it off to that agent only.',
  input: ReleaseInput,
  output: TaskEnvelope,
  async run(ctx, input) {
    const outcome = await ctx.store.release({
      task_id: input.task_id,
      claim_id: input.claim_id,
      to: input.to ?? null,
      note: input.note === undefined ? null : { text: input.note },
    });
    // SPEC §14: the claim's work-tree locks ended; git says now which paths they hold until merged.
    if (outcome.ok) await settleEnded(ctx).catch(() => 0);
    // SPEC §14 "No lost work", before the answer: whoever claims next (a supervisor's retry at once) reads it.
    if (outcome.ok) await noteWorkLeft(ctx, input.task_id, null).catch(() => null);
    return unwrap(outcome, input.task_id);
  },
});

export const submitResult = defineOperation({
  name: 'submit_result',
  summary: 'Finish a claimed task as completed or failed; retrying the same result is safe.',
  input: SubmitInput,
  output: SubmitOutput,
  async run(ctx, input) {
    const result = input.result ?? null;
    const submit = (verified: Verified | null, unlessTree: boolean) =>
      ctx.store.submit({
        task_id: input.task_id,
        claim_id: input.claim_id,
        status: input.status,
        result,
        result_hash: resultHash(input.status, result),
        note: input.note === undefined ? null : { text: input.note },
        ...(verified ? { change: verified.change, hold: verified.hold } : {}),
        ...(unlessTree ? { unless_tree: true } : {}),
      });
    // SPEC §14: only `completed` needs its work committed; a failed task's work stays held all the same. A
    // submit naming its work tree is verified first; one naming none is verified only if its claim recorded
    // one — the store says so instead of writing, so a program's submit is one statement (issue 36).
    const verifies = input.status === 'completed' && ctx.git !== undefined;
    let verified = verifies && input.worktree ? await verifyDone(ctx, input) : null;
    let outcome = await submit(verified, verifies && !input.worktree);
    if (!outcome.ok && outcome.reason === 'work_tree') {
      verified = await verifyDone(ctx, input, outcome.tree);
      outcome = await submit(verified, false);
    }
    // Without unless_tree the store writes or explains a loss; it never holds the submit back again.
    if (!outcome.ok && outcome.reason === 'work_tree') throw new CoordError('internal', 'submit held back twice');
    // SPEC §14: a work-tree lock this submit ended waits for git to say what stays held; none ended, none waits.
    // The submit's own work tree was looked at for its change record just now: that look is what git says now.
    if (outcome.ok && !outcome.replayed && outcome.ended_locks)
      await settleEnded(ctx, verified?.hold.worktree).catch(() => 0);
    const { task, replayed, integrated } = unwrap(outcome, input.task_id);
    // SPEC §15: a finished task's JSON says where its work stands — `{state: "none"}` when it has no commits.
    if (integrated === false) task.integration = { state: 'none' };
    else await describeIntegration(ctx.store, [task]);
    return { task, replayed };
  },
});

/**
 * SPEC §18: a supervisor claims before it makes the task's work tree, so the claim learns its work tree from
 * the first heartbeat that names it — the commit the tree was made at (`head`, else its HEAD then) is where the
 * change record and the lost-work note count commits from. A retry continues the task in the work tree and
 * branch its last try left: it counts from where that try began, so the change record (and the merge) holds
 * every try's commits, not the last's.
 */
async function recordTree(
  ctx: Ctx,
  told: { task_id: string; claim_id: string; head?: string | undefined },
  known: ClaimTree | null,
  located: Promise<WorkTreeFacts | null>,
): Promise<void> {
  const task = await ctx.store.getTask(told.task_id);
  if (task?.state !== 'claimed' || !task.claimed_by) return;
  const tree = await trackTree(ctx, task.board, task.claimed_by, located);
  if (!tree) return;
  const head = (await continuedFrom(ctx, known, tree)) ?? (await madeAt(ctx, tree, told.head)) ?? tree.head;
  await ctx.store.recordClaimTree(told.task_id, { claim_id: told.claim_id, worktree: tree.root, head });
}

/**
 * The commit the supervisor made the work tree at, when that is in its branch's history: its agent starts
 * without waiting for this heartbeat, and a commit it made meanwhile is the claim's work, not its start.
 */
async function madeAt(ctx: Ctx, tree: WorkTreeFacts, head: string | undefined): Promise<string | null> {
  if (!head || head === tree.head) return head ?? null;
  if (!ctx.git || !tree.branch) return null;
  return (await ctx.git.contains(tree.root, tree.branch, head).catch(() => false)) ? head : null;
}

/** Where the task's last claim in this same work tree began, while that is still in its branch's history. */
async function continuedFrom(ctx: Ctx, known: ClaimTree | null, tree: WorkTreeFacts): Promise<string | null> {
  if (!ctx.git || !known?.head || known.worktree !== tree.root || !tree.branch || known.head === tree.head) return null;
  return (await ctx.git.contains(tree.root, tree.branch, known.head).catch(() => false)) ? known.head : null;
}
