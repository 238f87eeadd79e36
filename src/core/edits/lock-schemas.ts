/** The inputs of locks and edit decisions (SPEC rule 10–13, §10): the paths they name, normalised to keys. */
import { z } from 'zod';
import { AgentName, BoardName, LeaseS, QueryBool, text } from '../fields.js';
import { WorktreePath } from '../worktrees/change-schemas.js';
import { MAX_KEYS_PER_REQUEST } from './edit-request.js';
import { canonicalSet, normaliseResource } from './paths.js';

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
