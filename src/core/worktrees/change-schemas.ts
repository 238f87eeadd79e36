/**
 * SPEC §14's shapes: where agents work (work trees), what each would bring
 * into the board's integration target (pending changes), and what a
 * completed task changed (its change record). Declared once, like every shape.
 */
import { z } from 'zod';
import { READY_ON } from '../model.js';

/** At most this many paths are listed per work tree; the count is always exact. */
export const MAX_LISTED_PATHS = 500;

export const CommitSchema = z.object({ sha: z.string(), subject: z.string() });

/**
 * The change record of a completed task (SPEC §14 "Verified done"), fixed at its first submit: the work
 * tree and branch it was done in, HEAD when the claim began, the merge base with the target, the head
 * submitted, the commits since the claim (newest first), the paths they changed, and whether the work
 * tree had nothing uncommitted.
 */
export const ChangeRecordSchema = z.object({
  worktree: z.string().describe('The work tree the task was done in (absolute path).'),
  branch: z.string().nullable().describe('Its branch; null when HEAD was detached.'),
  claim_head: z.string().nullable().describe('HEAD when the claim began (null when coord did not know it).'),
  base: z.string().nullable().describe('Merge base of the integration target and head.'),
  head: z.string().describe('HEAD at submit.'),
  commits: z.array(CommitSchema).describe('Commits since claim_head, newest first.'),
  paths: z.array(z.string()).describe('Paths those commits changed (at most 500 listed).'),
  insertions: z.int(),
  deletions: z.int(),
  clean: z.boolean().describe('The work tree had no uncommitted change at submit.'),
  merged_as: z
    .string()
    .optional()
    .describe('SPEC §15: once integrated, the target commit it became (or its head, already in the target).'),
});

/** The work tree an agent said it works in: an absolute path, checked against git by the server. */
export const WorktreePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((s) => s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s), 'must be an absolute path')
  .refine((s) => !s.includes('\0'), 'may not contain NUL')
  .describe('The work tree you work in (absolute path); coord mcp, the CLI and the hooks fill it in.');

export const WorktreeAgentSchema = z.object({
  agent: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  last_seen: z.string(),
});

export const PendingTreeSchema = z.object({
  path: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  ahead: z.int(),
  behind: z.int(),
  agents: z.array(z.string()).describe('Agents seen working in this work tree lately.'),
  tasks: z.array(z.string()).describe('Tasks claimed by those agents.'),
  pending: z.array(z.string()).describe(`What this work tree would bring into the target (first ${MAX_LISTED_PATHS}).`),
  pending_count: z.int(),
});

export const ChangesOutput = z.object({
  target: z.string(),
  worktrees: z.array(PendingTreeSchema),
  overlaps: z.array(z.object({ path: z.string(), worktrees: z.array(z.string()) })),
});
export const WorktreesOutput = z.object({ target: z.string(), worktrees: z.array(PendingTreeSchema) });

export const SetTargetInput = z.object({
  board: z
    .string()
    .regex(/^[A-Za-z0-9._:#@/-]{1,64}$/, 'must be a board name')
    .optional(),
  branch: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\s~^:?*[\\]+$/, 'must be a branch name')
    .refine((s) => !s.startsWith('-') && !s.includes('..'), 'must be a branch name'),
  ready_on: z
    .enum(READY_ON)
    .optional()
    .describe(
      'SPEC §11: when a blocker counts — `landed` (completed and, with commits, merged; the default) or `completed` (the old rule). Unchanged when left out.',
    ),
});
export const SetTargetOutput = z.object({
  board: z.string(),
  target: z.string(),
  ready_on: z.enum(READY_ON).describe("The board's readiness rule (SPEC §11)."),
});
