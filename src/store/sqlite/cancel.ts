import type { Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { taskCancelled } from '../shared/task-events.js';
import { rowVisibleTo } from '../shared/visibility.js';
import { appendEvent, stmt, type Tx } from './tx.js';

/** Cancel ends any live claim at once: the holder's next heartbeat or submit answers `cancelled`. */
export function cancel(
  tx: Tx,
  cmd: { task_id: string; agent: string; reason: string | null },
  onClaimEnded: (tx: Tx, row: TaskRow) => void,
): Outcome<{ task: Task }> {
  const before = stmt(tx.db, 'SELECT * FROM tasks WHERE id = ?').get(cmd.task_id) as TaskRow | undefined;
  if (!before || !rowVisibleTo(before, cmd.agent)) {
    return { ok: false, reason: 'not_found' };
  }
  const row = stmt(
    tx.db,
    `UPDATE tasks SET state = 'cancelled', lease_until = NULL, claim_session = NULL, updated_at = @now,
            claim_end = CASE WHEN state = 'claimed' THEN 'cancelled' ELSE claim_end END
     WHERE id = @task_id AND state IN ('queued', 'claimed') RETURNING *`,
  ).get({ task_id: cmd.task_id, now: tx.now }) as TaskRow | undefined;
  if (!row) {
    // Cancelling twice is a safe retry; the other terminal states cannot be cancelled.
    if (before.state === 'cancelled') return { ok: true, task: toTask(before) };
    if (before.state === 'expired') return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'not_claimable', state: before.state };
  }
  if (before.state === 'claimed') onClaimEnded(tx, before);
  appendEvent(tx, taskCancelled(row, cmd.agent, cmd.reason, before.state === 'claimed' ? before.claimed_by : null));
  return { ok: true, task: toTask(row) };
}
