import type { EventType, Lock } from '../../core/model.js';
import type { AcquireLocksCommand } from '../../core/ports.js';

/** An event as a store appends it, before it has its seq and time. */
export interface NewEvent {
  type: EventType;
  board: string;
  task_id?: string | null;
  lock_id?: string | null;
  agent?: string | null;
  data?: Record<string, unknown>;
}

/** The lock a successful acquire answers, and the `lock.acquired` event that records it. */
export function acquiredLock(
  cmd: AcquireLocksCommand,
  leaseUntil: number,
  taskId: string | null,
  now: number,
): { lock: Lock; event: NewEvent } {
  const lock: Lock = {
    lock_id: cmd.lock_id,
    board: cmd.board,
    agent: cmd.agent,
    resources: cmd.resources,
    lease_until: new Date(leaseUntil).toISOString(),
    task_id: taskId,
    created_at: new Date(now).toISOString(),
    worktree: cmd.worktree,
    hold: null,
  };
  const event: NewEvent = {
    type: 'lock.acquired',
    board: cmd.board,
    lock_id: cmd.lock_id,
    agent: cmd.agent,
    task_id: taskId,
    data: {
      resources: cmd.resources,
      lease_until: lock.lease_until,
      ...(cmd.worktree ? { worktree: cmd.worktree } : {}),
    },
  };
  return { lock, event };
}
