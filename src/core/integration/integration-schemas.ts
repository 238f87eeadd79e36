/** The zod shapes of the integration queue (SPEC §15): task JSON's `integration` and the integrator's calls. */
import { z } from 'zod';
import { AgentName, BoardName, TaskId, text } from '../fields.js';
import { INTEGRATION_STATES } from './integration.js';

/** SPEC §15: task JSON's `integration` (the integrator's calls below). */
export const IntegrationStateSchema = z.enum(INTEGRATION_STATES);
export const IntegrationSchema = z.object({
  state: IntegrationStateSchema,
  reason: z
    .string()
    .optional()
    .describe('Why it stopped: the conflicting paths, the failed check, the dirty work tree.'),
  commit: z.string().optional().describe('merged: the target tip it became (or the head already in the target).'),
  target: z.string().optional().describe('The branch it was merged into, or tried against.'),
  followup: z.string().optional().describe('conflict, check_failed: the follow-up task of the agent who did the work.'),
  flaky: z.boolean().optional().describe('merged: its check passed only on a retry (--check-retries).'),
  approved: z
    .boolean()
    .optional()
    .describe(
      "pending, awaiting_review: a person approved it (event task.approved); merged at the integrator's next turn.",
    ),
});

const Sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'must be a full commit id');
const SlotId = z
  .string()
  .min(16)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);
const Branch = text(z.string().min(1).max(255));

export const TakeSlotInput = z.object({
  board: BoardName,
  holder: text(z.string().min(1).max(200)),
  slot_id: SlotId,
  lease_s: z.int().min(1).max(3600).optional(),
});
export const TakeSlotOutput = z.object({
  ok: z.boolean(),
  lease_until: z.string(),
  holder: z.string().optional().describe('When the slot is held by another integrator: who.'),
});

export const ReleaseSlotInput = z.object({ board: BoardName, slot_id: SlotId });
export const ReleaseSlotOutput = z.object({ released: z.boolean() });

export const IntegrationQueueInput = z.object({ board: BoardName });
export const QueuedIntegrationSchema = z.object({
  task_id: z.string(),
  board: z.string(),
  title: z.string(),
  agent: z.string(),
  state: IntegrationStateSchema,
  reason: z.string().nullable(),
  worktree: z.string().nullable(),
  branch: z.string().nullable(),
  head: z.string(),
  tried_head: z.string().nullable(),
  approved: z.boolean(),
  blocked_by: z.array(z.string()),
  priority: z.number().optional(),
  queued_at: z.string(),
  updated_at: z.string().optional().describe('When its state last changed.'),
  target: z.string().optional().describe('The branch it was last tried against.'),
  followup: z.string().optional().describe('The follow-up task of a conflict or failed check.'),
});
export const IntegrationQueueOutput = z.object({ queue: z.array(QueuedIntegrationSchema) });

export const QueueIntegrationInput = z.object({
  task_id: TaskId,
  worktree: text(z.string().max(4096)).nullable().optional(),
  branch: Branch.nullable().optional(),
  head: Sha,
});
export const QueueIntegrationOutput = z.object({ created: z.boolean() });

export const RecordIntegrationInput = z.object({
  board: BoardName,
  slot_id: SlotId,
  task_id: TaskId,
  state: z.enum(['pending', 'awaiting_review', 'merged', 'conflict', 'check_failed', 'blocked']),
  reason: text(z.string().max(8192)).nullable().optional(),
  commit: Sha.nullable().optional(),
  head: Sha,
  target: Branch,
  how: z.enum(['fast-forward', 'merge', 'contained']).nullable().optional(),
  flaky: z.boolean().optional().describe('merged: the check passed only on a retry (--check-retries).'),
  note: text(z.string().max(16_384)).nullable().optional(),
  followup: z
    .object({ for: AgentName, title: text(z.string().min(1).max(500)), body: text(z.string().max(16_384)) })
    .nullable()
    .optional()
    .describe('A follow-up task for the agent who did the work (conflict, check_failed).'),
});
export const RecordIntegrationOutput = z.object({ integration: IntegrationSchema, followup_id: z.string().nullable() });

export const RecordWindowInput = z.object({
  board: BoardName,
  slot_id: SlotId,
  target: Branch,
  tasks: z.array(TaskId).min(1).max(1000).describe('The tasks checked together, in integration order.'),
  size: z.int().min(1).max(1000).describe("The window's size now (--window N, halved after a red check)."),
  lane: z.int().min(1).optional().describe('With --lanes: which lane (1, 2, …).'),
});
export const RecordWindowOutput = z.object({
  recorded: z.boolean().describe('false: this integrator no longer holds the slot; nothing was recorded.'),
});

export const ApproveInput = z.object({ task_id: TaskId });
export const ApproveMergeInput = ApproveInput.extend({
  agent: AgentName.optional().describe('Who approves: named in the task.approved event (a person, "dashboard").'),
});
export const ApproveOutput = z.object({ integration: IntegrationSchema });
