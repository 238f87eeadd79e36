/** SPEC §15 "What is merged is what was submitted", the twin of sqlite/integration-resubmit.ts. */
import type { QueueIntegrationCommand } from '../../core/integration/integration-ports.js';
import { rows } from './sql.js';
import type { Tx } from './tx.js';

const RESUBMIT = `UPDATE integrations SET head = @head, branch = @branch, worktree = @worktree, state = 'pending',
    reason = NULL, updated_at = @now::bigint
  WHERE (task_id = @task_id OR followup = @task_id) AND state IN ('conflict', 'check_failed', 'blocked') AND head <> @head
  RETURNING task_id`;

/** Answers whether the head went to another task's integration (the submit was a follow-up's). */
export async function recordSubmittedHead(tx: Tx, cmd: QueueIntegrationCommand): Promise<{ carried: boolean }> {
  const moved = await rows<{ task_id: string }>(tx.db, RESUBMIT, { ...cmd, now: tx.now });
  return { carried: moved.some((m) => m.task_id !== cmd.task_id) };
}
