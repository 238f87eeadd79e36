/** The board's inputs (SPEC §2–§7): tasks, claims and their fence, artifacts, and the reads of inbox, events, agents. */
import { z } from 'zod';
import { ResourceList } from '../edits/lock-schemas.js';
import {
  AgentName,
  BoardName,
  ClaimId,
  JsonValue,
  Kind,
  Label,
  LeaseS,
  line,
  MAX_BODY_CHARS,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_JSON_DEPTH,
  MAX_LABELS,
  MAX_TITLE_CHARS,
  NoteField,
  QueryBool,
  ResultStatusSchema,
  TaskId,
  TaskStateSchema,
  text,
} from '../fields.js';
import { IntegrationStateSchema } from '../integration/integration-schemas.js';
import { DEFAULT_TTL_S, MAX_BLOCKERS } from '../model.js';
import { WorktreePath } from '../worktrees/change-schemas.js';

export const CreateTaskInput = z.object({
  title: line(z.string().trim()).min(1).max(MAX_TITLE_CHARS).describe('One line saying what needs doing.'),
  body: text().max(MAX_BODY_CHARS).optional().describe('Details, context, acceptance criteria.'),
  kind: Kind.optional().describe('What sort of task: task (default), bug, review, handoff, note...'),
  priority: z.int().min(-1000).max(1000).optional().describe('Lower runs first; default 0.'),
  labels: z.array(Label).max(MAX_LABELS).optional(),
  for: AgentName.optional().describe('Make the task private to this agent: only it can see and claim it.'),
  ttl_s: z
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional()
    .describe(`Seconds until the task expires unless finished (default ${DEFAULT_TTL_S}).`),
  idempotency_key: text()
    .min(1)
    .max(MAX_IDEMPOTENCY_KEY_CHARS)
    .optional()
    .describe('Names one intent: posting again with the same key and payload returns the same task.'),
  board: BoardName.optional(),
  agent: AgentName,
  blocked_by: z
    .array(TaskId)
    .max(MAX_BLOCKERS)
    .optional()
    .describe(
      `Ids of tasks of this board that must complete before this one can be claimed (at most ${MAX_BLOCKERS}).`,
    ),
  parent: TaskId.optional().describe('A task of this board this one is part of (its children are counted on it).'),
});
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;

export const ListTasksInput = z.object({
  board: BoardName.optional(),
  state: TaskStateSchema.optional(),
  kind: Kind.optional(),
  label: Label.optional(),
  agent: AgentName.optional().describe('Only tasks this agent may see; omit for the operator view (every task).'),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z
    .string()
    // A page cursor is `<created_at ms>.<task id>` as next_cursor gave it; anything else would silently restart at page 1.
    .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,12}$/, 'must be the next_cursor of a previous page')
    .optional()
    .describe('next_cursor from the previous page.'),
  parent: TaskId.optional().describe('Only the children of this task.'),
  ready: QueryBool.optional().describe('Only queued tasks whose blockers have all completed.'),
  blocked: QueryBool.optional().describe('Only queued tasks still waiting for a blocker.'),
  integration: IntegrationStateSchema.optional().describe('SPEC §15: only tasks whose integration is in this state.'),
});
export type ListTasksInput = z.infer<typeof ListTasksInput>;

export const ShowTaskInput = z.object({ task_id: TaskId, agent: AgentName.optional() });

export const ClaimTaskInput = z.object({
  task_id: TaskId,
  agent: AgentName,
  lease_s: LeaseS.optional(),
  files: ResourceList.optional().describe(
    'Lock these repository-relative paths together with the claim: both happen or neither (lock_conflict). The lock ends with the claim.',
  ),
  worktree: WorktreePath.optional(),
});
export type ClaimTaskInput = z.infer<typeof ClaimTaskInput>;

export const ClaimNextInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  kinds: z.array(Kind).max(20).optional(),
  labels: z.array(Label).max(MAX_LABELS).optional(),
  lease_s: LeaseS.optional(),
  wait_s: z.number().min(0).max(60).optional().describe('Wait up to this many seconds for a task to appear.'),
  worktree: WorktreePath.optional(),
});
export type ClaimNextInput = z.infer<typeof ClaimNextInput>;

export const HeartbeatInput = z.object({
  task_id: TaskId,
  claim_id: ClaimId,
  lease_s: LeaseS.optional(),
  worktree: WorktreePath.optional().describe(
    'SPEC §18: the work tree the claim works in, when it was made after the claim (coord run): recorded once per claim.',
  ),
  head: z
    .string()
    .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'must be a full commit id')
    .optional()
    .describe(
      'With worktree: the commit the work tree was made at, where the claim began (its agent may have committed since).',
    ),
});
export const ReleaseInput = z.object({
  task_id: TaskId,
  claim_id: ClaimId,
  to: AgentName.optional().describe('Hand the task off: only this agent may claim it next.'),
  note: NoteField.optional(),
});
export const SubmitInput = z.object({
  task_id: TaskId,
  claim_id: ClaimId,
  status: ResultStatusSchema,
  result: JsonValue.optional().describe(
    `Any JSON value describing the outcome (nested at most ${MAX_JSON_DEPTH} deep).`,
  ),
  note: NoteField.optional(),
  worktree: WorktreePath.optional(),
  allow_dirty: z
    .boolean()
    .optional()
    .describe('Complete even though paths you touched have uncommitted changes (they are not part of the record).'),
});
export const CancelInput = z.object({
  task_id: TaskId,
  agent: AgentName,
  reason: line().max(1000).optional(),
  note: NoteField.optional(),
});
export const PutArtifactInput = z.object({
  task_id: TaskId,
  artifact_id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be 1–100 characters of A-Z a-z 0-9 . _ -'),
  claim_id: ClaimId,
  name: text().min(1).max(255).optional(),
  // Served back as the Content-Type header: printable ASCII only, so it can neither be mangled nor split a header.
  content_type: z
    .string()
    .regex(/^[!-~][ -~]{0,254}$/, 'must be a media type of printable ASCII, e.g. "text/plain; charset=utf-8"')
    .optional(),
});
export const GetArtifactInput = PutArtifactInput.pick({ task_id: true, artifact_id: true });
export const ListArtifactsInput = z.object({ task_id: TaskId, agent: AgentName.optional() });
export const InboxInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  since: z.coerce.number().int().min(0).optional().describe('Cursor from a previous inbox: show only what changed.'),
  format: z.enum(['text', 'json']).optional(),
});
export type InboxInput = z.infer<typeof InboxInput>;
export const EventsInput = z.object({
  board: BoardName.optional(),
  since: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  task: TaskId.optional().describe("Only this task's events (its history)."),
  tail: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')])
    .optional()
    .describe('The newest `limit` events (still oldest first) instead of the oldest after `since`.'),
});
export const AgentsInput = z.object({ board: BoardName.optional() });
