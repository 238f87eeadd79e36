/**
 * The output shapes of the operations (documented in OpenAPI and the MCP tools' output schemas; not
 * re-validated on the hot path). The inputs and the shared parts are in schemas.ts.
 */
import { z } from 'zod';
import { DELIVERY_VIAS, EVENT_TYPES } from './model.js';
import { UsageSchema } from './runs/supervision.js';
import { IntegrationSchema, IntegrationStateSchema, ResultStatusSchema, TaskStateSchema } from './schemas.js';
import { ChangeRecordSchema } from './worktrees/change-schemas.js';

export const TaskSchema = z.object({
  id: z.string(),
  board: z.string(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  priority: z.int(),
  labels: z.array(z.string()),
  for: z.string().nullable(),
  created_by: z.string(),
  state: TaskStateSchema,
  claimed_by: z.string().nullable(),
  lease_until: z.string().nullable(),
  attempts: z.int(),
  result_status: ResultStatusSchema.nullable(),
  result: z.unknown(),
  created_at: z.string(),
  updated_at: z.string(),
  expires_at: z.string(),
  idempotency_key: z.string().nullable(),
  blocked_by: z.array(z.string()).describe('Ids of the tasks this one waits for.'),
  blocked: z
    .array(
      z.object({
        id: z.string(),
        state: TaskStateSchema,
        integration: IntegrationStateSchema.optional().describe(
          'A completed blocker with commits: where they stand (pending, conflict, …) — it counts once merged.',
        ),
      }),
    )
    .describe('The blockers not landed yet (SPEC §11), with their states; empty when nothing holds the task back.'),
  ready: z
    .boolean()
    .describe('Queued with every blocker landed (completed and, with commits, merged): claim-next may take it.'),
  parent: z.string().nullable(),
  children: z
    .object({ total: z.int(), completed: z.int() })
    .optional()
    .describe('On a task that has children: how many, and how many completed.'),
  notes: z
    .lazy(() => z.array(NoteSchema))
    .optional()
    .describe('show_task only: the last 20 notes, oldest first.'),
  notes_count: z.int().optional().describe('show_task only: how many notes the task has.'),
  change: ChangeRecordSchema.nullable().describe(
    'SPEC §14: what a completed task changed (work tree, branch, commits since the claim, paths); fixed at its first submit.',
  ),
  handed_by: z
    .string()
    .optional()
    .describe('Who last handed it over (release with `to`): it can still see the task. Absent when never handed over.'),
  handoff_note: z
    .string()
    .optional()
    .describe("inbox only: the note the handing-over agent left with release `to`, for the task's new target."),
  integration: IntegrationSchema.optional().describe(
    "SPEC §15: where the task's commits stand with the target (show and list).",
  ),
  usage: UsageSchema.optional().describe(
    'SPEC §18: tokens, cost and wall time its supervised runs used, summed over tries. Absent when none recorded.',
  ),
});
export const TaskEnvelope = z.object({ task: TaskSchema });
export const CreateTaskOutput = z.object({ task: TaskSchema, created: z.boolean() });
export const ListTasksOutput = z.object({ tasks: z.array(TaskSchema), next_cursor: z.string().nullable() });
export const ClaimOutput = z.object({
  task: TaskSchema,
  claim_id: z.string(),
  fence: z.int(),
  lease_until: z.string(),
  reclaimed: z.boolean(),
  lock: z
    .object({ lock_id: z.string(), resources: z.array(z.string()) })
    .optional()
    .describe('The files locked with this claim (claim with files); released when the claim ends.'),
  work_left: z
    .string()
    .optional()
    .describe('SPEC §14: an earlier claim of this task ended with work left in its work tree — start from it.'),
});
export const HeartbeatOutput = z.object({ lease_until: z.string() });
export const SubmitOutput = z.object({ task: TaskSchema, replayed: z.boolean() });
export const ArtifactSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  name: z.string(),
  size: z.int(),
  sha256: z.string(),
  content_type: z.string(),
});
export const ArtifactOutput = z.object({ artifact: ArtifactSchema, created: z.boolean() });
export const ListArtifactsOutput = z.object({ artifacts: z.array(ArtifactSchema) });
export const EventSchema = z.object({
  seq: z.int(),
  type: z.enum(EVENT_TYPES),
  board: z.string(),
  task_id: z.string().nullable(),
  lock_id: z.string().nullable(),
  agent: z.string().nullable(),
  at: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export const EventsOutput = z.object({ events: z.array(EventSchema), next_since: z.int() });
export const AgentsOutput = z.object({
  agents: z.array(
    z.object({
      name: z.string(),
      active: z.boolean(),
      last_seen: z.string(),
      claims: z.array(z.string()),
      locks: z.array(z.string()),
      unread: z.int().optional().describe('Messages to this agent on the board not acknowledged yet.'),
      worktree: z.string().nullable().optional().describe('SPEC §14: the work tree it was last seen working in.'),
      branch: z.string().nullable().optional().describe("That work tree's branch."),
      claims_total: z.int().optional().describe('How many claims it holds, when `claims` lists only the first.'),
      locks_total: z.int().optional().describe('How many resources it locks, when `locks` lists only the first.'),
    }),
  ),
  total: z.int().optional().describe('How many agents were seen, when `agents` lists only the first (active first).'),
});
export const LockSchema = z.object({
  lock_id: z.string(),
  board: z.string(),
  agent: z.string(),
  resources: z.array(z.string()),
  lease_until: z.string(),
  task_id: z.string().nullable().describe('Set when the lock was taken with a claim: it ends with that claim.'),
  created_at: z.string(),
  worktree: z.string().nullable().describe('The work tree the holder works in, when known.'),
  hold: z
    .object({ since: z.string() })
    .nullable()
    .describe('SPEC §14: a change hold — the lock ended while its paths were pending in its work tree.'),
});
export const LockFilesOutput = z.object({
  lock_id: z.string(),
  resources: z.array(z.string()),
  lease_until: z.string(),
});
export const UnlockOutput = z.object({ released: z.literal(true) });
export const DecideEditOutput = z.object({
  decision: z.enum(['allow', 'deny']),
  board: z.string(),
  resources: z.array(z.string()).describe('The keys decided.'),
  lock_id: z
    .string()
    .nullable()
    .describe('Allow: the auto-lock taken now for keys none of your locks covered; null when you held them all.'),
  renewed: z.array(z.string()).describe('Allow: your locks whose lease this edit renewed.'),
  lease_until: z.string().nullable().describe('Allow: when the earliest lock covering these keys ends.'),
  reason: z.string().nullable().describe('Deny: `lock_conflict: …`, the line to show the model.'),
  conflicts: z
    .array(
      z.object({
        resource: z.string(),
        held: z.string(),
        holder: z.string(),
        lock_id: z.string(),
        lease_until: z.string(),
        task_id: z.string().nullable(),
      }),
    )
    .describe('Deny: each live lock of another agent that overlaps a path.'),
  warning: z
    .string()
    .nullable()
    .describe(
      'Allow: one line for the model when a path has changes not merged yet in another work tree that no hold covers (SPEC §14).',
    ),
});
export const ListLocksOutput = z.object({ locks: z.array(LockSchema) });
export const InboxOutput = z.object({
  agent: z.string(),
  board: z.string(),
  cursor: z.int(),
  claims: z.array(z.object({ task: TaskSchema, lease_until: z.string() })),
  tasks: z.array(TaskSchema),
  more: z.int(),
  gone: z.array(z.object({ id: z.string(), state: TaskStateSchema, claimed_by: z.string().nullable() })),
  blocked: z.int().describe('Queued tasks you could claim once their blockers land (not listed).'),
  messages: z
    .lazy(() => z.array(MessageSchema))
    .optional()
    .describe('Your unacknowledged messages, unread first (SPEC §12).'),
  unread: z.int().optional().describe('How many messages to you are not acknowledged yet.'),
});
export type InboxOutput = z.infer<typeof InboxOutput>;
export const ErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }).catchall(z.unknown()),
});

// ---- notes and messages (SPEC §12) ----

export const NoteSchema = z.object({
  id: z.string(),
  task_id: z.string(),
  agent: z.string(),
  text: z.string(),
  at: z.string(),
});
export const DeliveryViaSchema = z.enum(DELIVERY_VIAS);
export const ReceiptSchema = z.object({
  agent: z.string().describe('The recipient.'),
  delivered_at: z.string().nullable().describe('When it was first shown to the recipient.'),
  delivered_via: DeliveryViaSchema.nullable().describe('How it was first shown: inbox, prime, stop (hook) or push.'),
  acked_at: z.string().nullable(),
});
export const MessageSchema = z.object({
  id: z.string(),
  board: z.string(),
  from: z.string(),
  to: z.string().describe('An agent, or * for every agent known on the board when it was sent.'),
  text: z.string(),
  task_id: z.string().nullable(),
  ack_required: z.boolean(),
  created_at: z.string(),
  idempotency_key: z.string().nullable(),
  receipts: z
    .array(ReceiptSchema)
    .describe('The sender sees every recipient (the first 50, with receipt_counts beyond); a recipient only its own.'),
  receipt_counts: z
    .object({ recipients: z.int(), delivered: z.int(), acked: z.int() })
    .optional()
    .describe('Present when receipts lists only the first: how many recipients, delivered, acknowledged.'),
});
