import type { ClaimEnd, TaskFacts } from '../../core/board/rules.js';
import type { Artifact, ClaimGrant, CoordEvent, EventType, ResultStatus, Task, TaskState } from '../../core/model.js';
import type { TreeToVerify } from '../../core/ports.js';
import type { ClaimTree } from '../../core/worktrees/worktree-ports.js';
import { taskUsage } from './task-usage.js';

/** A tasks row as both stores return it (labels: JSON text in SQLite, text[] in PostgreSQL). */
export interface TaskRow {
  id: string;
  board: string;
  kind: string;
  title: string;
  body: string;
  priority: number;
  labels: string | string[];
  for_agent: string | null;
  created_by: string;
  state: TaskState;
  claimed_by: string | null;
  claim_id: string | null;
  lease_until: number | null;
  attempts: number;
  result_status: ResultStatus | null;
  result: string | null;
  result_hash: string | null;
  created_at: number;
  updated_at: number;
  expires_at: number;
  idempotency_key: string | null;
  payload_hash: string;
  claim_session: string | null;
  claim_lease_ms: number | null;
  claim_end: ClaimEnd | null;
  /** SPEC §11 (migration 0003): blocker ids as JSON text (SQLite) or text[] (PostgreSQL), in the order added. */
  blocked_by: string | string[];
  /** How many blockers are not completed yet: claims require 0. */
  blockers_open: number;
  parent: string | null;
  children_total: number;
  children_completed: number;
  /** SPEC §14 (migration 0007). */
  claim_worktree: string | null;
  claim_head: string | null;
  claim_tree_of: string | null;
  /** SPEC §14 (migration 0015): the work tree's dirty paths when the claim began, as JSON text. */
  claim_dirty?: string | null;
  change_record: string | null;
  /** Who last handed it over with release --to (migration 0011); older rows: null. */
  handed_by: string | null;
  /** SPEC §18 (migration 0016): usage summed over the task's supervised runs (shared/task-usage.ts); null: none. */
  run_usage?: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The work tree the row's current claim recorded (SPEC §14), or null when it recorded none. */
export const claimTreeOf = (r: TaskRow): ClaimTree | null =>
  r.claim_id && r.claim_tree_of === r.claim_id && r.claim_worktree
    ? {
        claim_id: r.claim_tree_of,
        worktree: r.claim_worktree,
        head: r.claim_head,
        dirty: r.claim_dirty ? (JSON.parse(r.claim_dirty) as string[]) : null,
      }
    : null;

/**
 * SPEC §14, a submit with `unless_tree` whose fenced write was held back: when its claim is still live and
 * recorded a work tree, core verifies that work tree first (nothing was written); else the loss is explained
 * as usual. The write's predicate and this test are the same condition (`TREE_KNOWN` in each store's fenced.ts).
 */
export function treeToVerify(
  r: TaskRow | null | undefined,
  cmd: { claim_id: string; unless_tree?: boolean | undefined },
  now: number,
): TreeToVerify | null {
  if (!cmd.unless_tree || !r || r.state !== 'claimed' || r.claim_id !== cmd.claim_id) return null;
  if (r.lease_until === null || Number(r.lease_until) <= now) return null;
  const tree = claimTreeOf(r);
  return tree ? { ok: false, reason: 'work_tree', tree } : null;
}

export function toTask(r: TaskRow): Task {
  return {
    id: r.id,
    board: r.board,
    kind: r.kind,
    title: r.title,
    body: r.body,
    priority: r.priority,
    labels: typeof r.labels === 'string' ? (JSON.parse(r.labels) as string[]) : r.labels,
    for: r.for_agent,
    created_by: r.created_by,
    state: r.state,
    claimed_by: r.claimed_by,
    lease_until: r.lease_until === null ? null : iso(r.lease_until),
    attempts: r.attempts,
    result_status: r.result_status,
    result: r.result === null ? null : JSON.parse(r.result),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    expires_at: iso(r.expires_at),
    idempotency_key: r.idempotency_key,
    blocked_by: typeof r.blocked_by === 'string' ? (JSON.parse(r.blocked_by) as string[]) : r.blocked_by,
    // The open blockers' states live on their own rows: core fills them in (core/board/blockers.ts).
    blocked: [],
    ready: r.state === 'queued' && r.blockers_open === 0,
    parent: r.parent,
    ...(r.children_total > 0 ? { children: { total: r.children_total, completed: r.children_completed } } : {}),
    change: r.change_record ? JSON.parse(r.change_record) : null,
    ...(r.handed_by ? { handed_by: r.handed_by } : {}),
    ...(r.run_usage ? { usage: taskUsage(r.run_usage) } : {}),
  };
}

export function toFacts(r: TaskRow): TaskFacts & { result_hash: string | null } {
  return {
    state: r.state,
    for: r.for_agent,
    created_by: r.created_by,
    handed_by: r.handed_by,
    claimed_by: r.claimed_by,
    claim_id: r.claim_id,
    lease_until_ms: r.lease_until,
    expires_at_ms: r.expires_at,
    attempts: r.attempts,
    claim_end: r.claim_end,
    result_hash: r.result_hash,
    blockers_open: r.blockers_open,
  };
}

export function toGrant(r: TaskRow, reclaimed: boolean): ClaimGrant {
  return {
    task: toTask(r),
    claim_id: r.claim_id ?? '',
    fence: r.attempts,
    lease_until: iso(r.lease_until ?? 0),
    reclaimed,
  };
}

export interface EventRow {
  seq: number;
  type: EventType;
  board: string;
  task_id: string | null;
  lock_id: string | null;
  agent: string | null;
  at: number;
  data: string;
}

export const toEvent = (r: EventRow): CoordEvent => ({
  seq: r.seq,
  type: r.type,
  board: r.board,
  task_id: r.task_id,
  lock_id: r.lock_id,
  agent: r.agent,
  at: iso(r.at),
  data: JSON.parse(r.data),
});

export interface ArtifactRow {
  task_id: string;
  artifact_id: string;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

export const toArtifact = (r: ArtifactRow): Artifact => ({
  id: r.artifact_id,
  task_id: r.task_id,
  name: r.name,
  size: r.size,
  sha256: r.sha256,
  content_type: r.content_type,
});
