/**
 * The integration queue's operations (SPEC §15). The integrator (src/git/integrator.ts) runs git where
 * the repository is — in the daemon (`serve --integrate`) or in a CLI process (`coord integrate`) — and
 * talks to the board only through these: take the board's slot, read the queue, record each result
 * (fenced by the slot). People approve and retry.
 */

import { CoordError } from '../errors.js';
import { SLOT_LEASE_MS, shownIntegration } from '../integration/integration.js';
import {
  ApproveInput,
  ApproveMergeInput,
  ApproveOutput,
  IntegrationQueueInput,
  IntegrationQueueOutput,
  QueueIntegrationInput,
  QueueIntegrationOutput,
  RecordIntegrationInput,
  RecordIntegrationOutput,
  RecordWindowInput,
  RecordWindowOutput,
  ReleaseSlotInput,
  ReleaseSlotOutput,
  TakeSlotInput,
  TakeSlotOutput,
} from '../integration/integration-schemas.js';
import { DEFAULT_TTL_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { canonicalJson, sha256Hex } from '../shared/canonical-json.js';
import { settleHolds } from './settle-holds.js';

export const takeIntegrationSlot = defineOperation({
  name: 'take_integration_slot',
  summary: "Take (or renew) a board's integration slot: one integrator at a time, fenced by slot_id.",
  input: TakeSlotInput,
  output: TakeSlotOutput,
  async run(ctx, input) {
    const out = await ctx.store.takeIntegrationSlot({
      board: input.board,
      holder: input.holder,
      slot_id: input.slot_id,
      lease_ms: input.lease_s === undefined ? SLOT_LEASE_MS : input.lease_s * 1000,
    });
    // Losing is an answer, not an error: a second integrator waits its turn and asks again.
    return out.ok
      ? { ok: true, lease_until: out.lease_until }
      : { ok: false, holder: out.holder, lease_until: out.lease_until };
  },
});

export const releaseIntegrationSlot = defineOperation({
  name: 'release_integration_slot',
  summary: "Give a board's integration slot back (idempotent).",
  input: ReleaseSlotInput,
  output: ReleaseSlotOutput,
  run: (ctx, input) => ctx.store.releaseIntegrationSlot(input.board, input.slot_id),
});

export const integrationQueue = defineOperation({
  name: 'integration_queue',
  summary: "The board's tasks waiting to be merged (or stopped), in completion order.",
  input: IntegrationQueueInput,
  output: IntegrationQueueOutput,
  async run(ctx, input) {
    return { queue: await ctx.store.integrationQueue(input.board) };
  },
});

export const queueIntegration = defineOperation({
  name: 'queue_integration',
  summary: 'Put a completed task with commits in the integration queue (done by submit; safe to repeat).',
  input: QueueIntegrationInput,
  output: QueueIntegrationOutput,
  async run(ctx, input) {
    const task = await ctx.store.getTask(input.task_id);
    if (!task) throw new CoordError('not_found', `#${input.task_id} does not exist`, { task_id: input.task_id });
    if (task.state !== 'completed') {
      throw new CoordError('not_claimable', `#${task.id} is ${task.state}: only completed work is merged`, {
        task_id: task.id,
        state: task.state,
      });
    }
    return ctx.store.queueIntegration({
      task_id: task.id,
      worktree: input.worktree ?? null,
      branch: input.branch ?? null,
      head: input.head,
    });
  },
});

export const recordIntegration = defineOperation({
  name: 'record_integration',
  summary: "Record an integrator's result (fenced by its slot): state, note, follow-up task, event.",
  input: RecordIntegrationInput,
  output: RecordIntegrationOutput,
  async run(ctx, input) {
    const f = input.followup ?? null;
    const out = await ctx.store.recordIntegration({
      board: input.board,
      slot_id: input.slot_id,
      task_id: input.task_id,
      state: input.state,
      reason: input.reason ?? null,
      commit: input.commit ?? null,
      head: input.head,
      target: input.target,
      how: input.how ?? null,
      flaky: input.flaky ?? false,
      note: input.note ?? null,
      followup: f && {
        board: input.board,
        kind: 'task',
        title: f.title,
        body: f.body,
        priority: 0,
        labels: ['integration'],
        for: f.for,
        created_by: 'coord',
        ttl_ms: DEFAULT_TTL_S * 1000,
        idempotency_key: null,
        payload_hash: sha256Hex(canonicalJson({ followup_of: input.task_id, head: input.head, state: input.state })),
        blocked_by: [],
        parent: null,
      },
    });
    if (out.ok) {
      // Merged: the task's holds end now (SPEC §15), not at the background check — its paths are no longer
      // pending in its work tree. git failing here says nothing about the merge, which is recorded.
      if (input.state === 'merged') await settleHolds(ctx, input.board).catch(() => 0);
      return { integration: shownIntegration(out.integration), followup_id: out.followup_id };
    }
    if (out.reason === 'not_found') {
      throw new CoordError('not_found', `#${input.task_id} is not in the integration queue`, {
        task_id: input.task_id,
      });
    }
    throw new CoordError(
      'stale_claim',
      `this integrator no longer holds the integration slot of ${input.board} — another one took over; nothing was recorded`,
      { task_id: input.task_id },
    );
  },
});

export const recordIntegrationWindow = defineOperation({
  name: 'record_integration_window',
  summary:
    'SPEC §15: the integrator (holding the slot) begins checking these tasks together — event integration.window.',
  input: RecordWindowInput,
  output: RecordWindowOutput,
  run: (ctx, input) =>
    ctx.store.recordIntegrationWindow({
      board: input.board,
      slot_id: input.slot_id,
      target: input.target,
      tasks: input.tasks,
      size: input.size,
      lane: input.lane ?? null,
    }),
});

const refusal = (task_id: string, state: string, what: string) =>
  new CoordError(
    state === 'none' ? 'not_found' : 'not_claimable',
    state === 'none'
      ? `#${task_id} is not in the integration queue (only completed tasks with commits are)`
      : `#${task_id} is ${state}: ${what}`,
    { task_id, state },
  );

export const approveIntegration = defineOperation({
  name: 'approve_integration',
  summary: 'Approve the merge of a task held for review (integrate --review): it is merged next.',
  input: ApproveMergeInput,
  output: ApproveOutput,
  async run(ctx, input) {
    const out = await ctx.store.approveIntegration(input.task_id, input.agent ?? null);
    if (!out.ok) throw refusal(input.task_id, out.state, 'there is nothing to approve');
    return { integration: shownIntegration(out.integration) };
  },
});

export const retryIntegration = defineOperation({
  name: 'retry_integration',
  summary: 'Queue a conflicting, failed or blocked task for integration again.',
  input: ApproveInput,
  output: ApproveOutput,
  async run(ctx, input) {
    const out = await ctx.store.retryIntegration(input.task_id);
    if (!out.ok) throw refusal(input.task_id, out.state, 'only a conflict, failed check or blocked task is retried');
    return { integration: shownIntegration(out.integration) };
  },
});
