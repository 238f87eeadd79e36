/**
 * SPEC §15 "What is merged is what was submitted": a submit that records a head moves the integration of
 * the task it is about — its own (a new submit of the task) or, for a follow-up task, the task whose
 * conflict or failed check it resolves — to that head, pending again. The integrator merges only heads
 * recorded here, never a branch's current tip.
 */
import type { QueueIntegrationCommand } from '../../core/integration/integration-ports.js';
import { stmt, type Tx } from './tx.js';

const RESUBMIT = `UPDATE integrations SET head = @head, branch = @branch, worktree = @worktree, state = 'pending',
    reason = NULL, updated_at = @now
  WHERE (task_id = @task_id OR followup = @task_id) AND state IN ('conflict', 'check_failed', 'blocked') AND head <> @head
  RETURNING task_id`;

/** Answers whether the head went to another task's integration (the submit was a follow-up's). */
export function recordSubmittedHead(tx: Tx, cmd: QueueIntegrationCommand): { carried: boolean } {
  const moved = stmt(tx.db, RESUBMIT).all({ ...cmd, now: tx.now }) as { task_id: string }[];
  return { carried: moved.some((m) => m.task_id !== cmd.task_id) };
}
