/**
 * The events a task's changes append, built once for both stores: the type, who did it and the payload
 * (docs/live.md lists them). A store runs its own SQL and hands the rows it got back to these.
 */
import type { ResultStatus } from '../../core/model.js';
import { createdData, type Links } from './deps-rows.js';
import type { NewEvent } from './new-event.js';
import type { TaskRow } from './rows.js';

type Row = Pick<TaskRow, 'id' | 'board' | 'title' | 'kind' | 'priority' | 'for_agent' | 'created_by'> &
  Pick<TaskRow, 'claimed_by' | 'attempts' | 'lease_until'>;

/** The edges ride along so the event log alone shows the graph (SPEC §11). */
export const taskCreated = (r: Row, links: Links): NewEvent => ({
  type: 'task.created',
  board: r.board,
  task_id: r.id,
  agent: r.created_by,
  data: createdData(r, links),
});

export const taskClaimed = (r: Row): NewEvent => ({
  type: 'task.claimed',
  board: r.board,
  task_id: r.id,
  agent: r.claimed_by,
  data: { fence: r.attempts, lease_until: new Date(r.lease_until ?? 0).toISOString() },
});

/**
 * Back in the queue: `previous` held it until now; `reason` says why (lease_lapsed, session_ended,
 * released, handoff); a release names `to` (the agent it was handed to, or undefined).
 */
export const taskRequeued = (
  r: Row,
  previous: string | null,
  reason: 'lease_lapsed' | 'session_ended' | 'released' | 'handoff',
  release?: { to: string | null | undefined },
): NewEvent => ({
  type: 'task.requeued',
  board: r.board,
  task_id: r.id,
  agent: previous,
  data: { reason, ...release, previous, fence: r.attempts },
});

export const taskFinished = (r: Row, status: ResultStatus): NewEvent => ({
  type: status === 'completed' ? 'task.completed' : 'task.failed',
  board: r.board,
  task_id: r.id,
  agent: r.claimed_by,
  data: { fence: r.attempts },
});

/** `holder` is the agent whose claim the cancel ended, if it was claimed. */
export const taskCancelled = (
  r: Row,
  agent: string,
  reason: string | null | undefined,
  holder: string | null,
): NewEvent => ({
  type: 'task.cancelled',
  board: r.board,
  task_id: r.id,
  agent,
  data: { reason, holder },
});

export const taskExpired = (r: Row): NewEvent => ({
  type: 'task.expired',
  board: r.board,
  task_id: r.id,
  agent: r.claimed_by,
});

export const lockReleased = (
  l: { board: string; lock_id: string; agent: string; task_id: string | null },
  resources: string[],
  reason: string,
): NewEvent => ({
  type: 'lock.released',
  board: l.board,
  lock_id: l.lock_id,
  agent: l.agent,
  task_id: l.task_id,
  data: { resources, reason },
});

/** SPEC §14: a lock from a work tree ended while (maybe) pending there — it stays as that work tree's change hold. */
export const lockHeld = (
  l: { board: string; lock_id: string; agent: string; task_id: string | null; worktree: string | null },
  resources: string[],
  reason: string,
): NewEvent => ({
  type: 'lock.held',
  board: l.board,
  lock_id: l.lock_id,
  agent: l.agent,
  task_id: l.task_id,
  data: { resources, reason, worktree: l.worktree },
});
