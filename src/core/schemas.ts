/**
 * One zod schema per shape. HTTP validation, the OpenAPI document, MCP tool
 * input schemas and CLI parsing all derive from these — never a second copy.
 */
import { z } from 'zod';
import { MAX_KEYS_PER_REQUEST } from './edits/edit-request.js';
import { canonicalSet, normaliseResource } from './edits/paths.js';
import { INTEGRATION_STATES } from './integration/integration.js';
import {
  DEFAULT_BOARD,
  DEFAULT_LEASE_S,
  DEFAULT_TTL_S,
  MAX_BLOCKERS,
  MAX_LEASE_S,
  MIN_LEASE_S,
  TASK_STATES,
} from './model.js';
import { NAME_RE } from './shared/names.js';
import { WorktreePath } from './worktrees/change-schemas.js';

/** A lone UTF-16 surrogate: stores write text as UTF-8, where it would silently become U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const NUL_MESSAGE = 'may not contain NUL (\\u0000) characters';
export const SURROGATE_MESSAGE = 'must be valid Unicode (it contains a lone UTF-16 surrogate)';

/**
 * Text a store keeps exactly as given, the same on both stores: PostgreSQL
 * refuses NUL in text (SQLite would keep it), and both would write a lone
 * surrogate as U+FFFD — two different idempotency keys would then read back
 * as one. So every free-text field refuses both, naming itself.
 */
export const text = (base = z.string()) =>
  base.refine((s) => !s.includes('\0'), NUL_MESSAGE).refine((s) => !LONE_SURROGATE.test(s), SURROGATE_MESSAGE);

/**
 * Control characters other than tab (NUL is refused by `text` already): a one-line field is printed into
 * terminals and models' inboxes, where ESC sequences would repaint a human's screen and a newline would
 * forge an inbox line of its own.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0001-\u0008\u000a-\u001f\u007f-\u009f]/;
export const CONTROL_MESSAGE = 'is one line: it may not contain control characters (newlines, ESC, …)';

/** Text shown on one line (a title, a label, a reason); `base` may trim first. */
const line = (base = z.string()) => text(base).refine((s) => !CONTROL.test(s), CONTROL_MESSAGE);

export const AgentName = z
  .string()
  .regex(NAME_RE, 'must be 1–64 characters of A-Z a-z 0-9 . _ : # @ / -')
  .describe('Your agent name, e.g. "claude-code#a1f3".');
export const BoardName = z
  .string()
  .regex(NAME_RE, 'must be 1–64 characters of A-Z a-z 0-9 . _ : # @ / -')
  .describe('Board (namespace of tasks and locks), usually one per repository.');
export const TaskId = z
  .string()
  .regex(/^#?[A-Za-z0-9_-]{1,12}$/, 'must be a task id such as "k3m9x2qa"')
  .transform((s) => s.replace(/^#/, ''))
  .describe('The task id, e.g. "k3m9x2qa".');
export const ClaimId = text().min(1).max(100).describe('The claim_id returned by the claim: your fencing token.');
export const LeaseS = z
  .int()
  .min(MIN_LEASE_S)
  .max(MAX_LEASE_S)
  .describe(`Lease in seconds (${MIN_LEASE_S}–${MAX_LEASE_S}, default ${DEFAULT_LEASE_S}); heartbeat before it ends.`);
export const TaskStateSchema = z.enum(TASK_STATES);
export const ResultStatusSchema = z.enum(['completed', 'failed']);
export const MAX_LABELS = 20;
const Label = line().min(1).max(40);
const Kind = z.string().regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be 1–32 characters of A-Z a-z 0-9 . _ -');

export const MAX_JSON_DEPTH = 100;

/**
 * Why a value is not JSON coord can keep, or null. Iterative, so a hostile
 * million-deep array is an answer, not a stack overflow; objects are walked
 * as given, so a key such as "__proto__" is kept like any other.
 */
function jsonProblem(value: unknown): { path: (string | number)[]; message: string } | null {
  const todo: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const { v, path } = next;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path, message: 'numbers must be finite' };
      continue;
    }
    const proto = typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      return { path, message: 'is not a JSON value' };
    }
    if (path.length >= MAX_JSON_DEPTH) {
      return { path: path.slice(0, 3), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    }
    const entries: [string | number, unknown][] = Array.isArray(v) ? [...v.entries()] : Object.entries(v as object);
    for (const [k, x] of entries) todo.push({ v: x, path: [...path, k] });
  }
  return null;
}

/** Any JSON value, kept exactly as sent (results are stored as JSON text on both stores, NUL and all). */
export const JsonValue = z.unknown().superRefine((v, ctx) => {
  const problem = jsonProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

export const MAX_TITLE_CHARS = 500;
export const MAX_BODY_CHARS = 65_536;
export const MAX_IDEMPOTENCY_KEY_CHARS = 200;

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

/** A boolean that may arrive as a query string ("true" / "false"). */
export const QueryBool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** SPEC §15: task JSON's `integration` (integration-schemas.ts has the integrator's calls). */
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

export const MAX_RESOURCES = MAX_KEYS_PER_REQUEST;
/**
 * Resources to lock (normally repo-relative file paths; `dir/` is a whole
 * directory), normalised to canonical keys: deduplicated, covered keys
 * dropped, sorted (rule 11). A path that cannot be normalised is an issue
 * naming its index.
 */
export const ResourceList = z
  .array(text().max(4096))
  .max(MAX_RESOURCES)
  .transform((paths, ctx) => {
    const keys: string[] = [];
    paths.forEach((p, i) => {
      const n = normaliseResource(p);
      if (n.ok) keys.push(n.key);
      else ctx.addIssue({ code: 'custom', path: [i], message: n.message });
    });
    return canonicalSet(keys);
  })
  .describe('Repository-relative paths, e.g. ["src/app.ts", "docs/"]; a trailing / locks a whole directory.');
export const LockId = text().min(1).max(100).describe('The lock_id returned when the lock was taken.');

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

export const MAX_NOTE_BYTES = 8192;
/** A note or message text: free text (newlines allowed), at most 8 KiB of UTF-8. */
export const NoteText = text()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= MAX_NOTE_BYTES, `must be at most ${MAX_NOTE_BYTES} bytes of UTF-8`);
const NoteField = NoteText.describe(
  'A note on the task, written in the same transaction (what was done, what is left): the next agent reads it.',
);

export const HeartbeatInput = z.object({
  task_id: TaskId,
  claim_id: ClaimId,
  lease_s: LeaseS.optional(),
  worktree: WorktreePath.optional().describe(
    'SPEC §18: the work tree the claim works in, when it was made after the claim (coord run): recorded once per claim.',
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
export const LockFilesInput = z.object({
  agent: AgentName,
  resources: ResourceList.refine((r) => r.length > 0, 'name at least one path'),
  lease_s: LeaseS.optional(),
  board: BoardName.optional(),
  worktree: WorktreePath.optional(),
});
export const RenewLockInput = z.object({ lock_id: LockId, lease_s: LeaseS.optional() });
export const UnlockInput = z.object({
  lock_id: LockId,
  // DELETE /v1/locks/:lock_id takes its input from the query string.
  force: QueryBool.optional().describe(
    'For a person: end it even when it is a change hold (SPEC §14); noted on its task.',
  ),
  agent: AgentName.optional().describe('Who ends it (named in the note a forced end leaves).'),
});
export const ListLocksInput = z.object({ board: BoardName.optional() });
export const DecideEditInput = z.object({
  agent: AgentName,
  board: BoardName.optional(),
  paths: ResourceList.refine((r) => r.length > 0, 'name at least one path').describe(
    'The repository-relative paths the edit writes (a move or delete: source and destination).',
  ),
  worktree: text()
    .min(1)
    .max(4096)
    .optional()
    .describe('The work tree the edit happens in (absolute path): its own change holds (SPEC §14) do not block it.'),
  outside: z
    .boolean()
    .optional()
    .describe(
      "The agent's session works in another work tree than `worktree` (SPEC §14: the work tree of an edit is the path's): that tree's holds block the edit as anyone's.",
    ),
  lease_s: LeaseS.optional().describe('The auto-lock’s lease in seconds (default 600), renewed by later edits.'),
});

export const DEFAULTS = { board: DEFAULT_BOARD, lease_s: DEFAULT_LEASE_S, ttl_s: DEFAULT_TTL_S } as const;

/** SPEC §12: a message id (message-schemas.ts has the notes and messages operations). */
export const MessageId = z
  .string()
  .regex(/^m[a-z0-9]{1,24}$/, 'must be a message id such as "m3k9x2qab"')
  .describe('The message id, e.g. "m3k9x2qab".');

export const ListArtifactsInput = z.object({ task_id: TaskId, agent: AgentName.optional() });
