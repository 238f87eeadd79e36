/**
 * Cancel (SPEC §2) of both stores, written once with its statements (PostgreSQL's text; SQLite's runner leaves
 * out the row lock, program.ts). It ends any live claim at once: the holder's next heartbeat or submit answers
 * `cancelled`.
 */
import type { Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import type { LocksSql } from './locks-sql.js';
import { freeClaimLocks } from './locks-store.js';
import { emit, get, type Prog, type Q } from './program.js';
import { type TaskRow, toTask } from './rows.js';
import { taskCancelled } from './task-events.js';
import { rowVisibleTo } from './visibility.js';

export const CANCEL_SQL = {
  // Locked, so the holder named in the event is the one whose claim this cancel ends.
  before: 'SELECT * FROM tasks WHERE id = @id FOR NO KEY UPDATE',
  cancel: `UPDATE tasks SET state = 'cancelled', lease_until = NULL, claim_session = NULL, updated_at = @now::bigint,
      claim_end = CASE WHEN state = 'claimed' THEN 'cancelled' ELSE claim_end END
    WHERE id = @task_id AND state IN ('queued', 'claimed') RETURNING *`,
};

export function* cancel(
  q: Q<typeof CANCEL_SQL>,
  cmd: { task_id: string; agent: string; reason: string | null },
  locks: LocksSql,
): Prog<Outcome<{ task: Task }>> {
  const before = yield* get<TaskRow>(q.sql.before, { id: cmd.task_id });
  if (!before || !rowVisibleTo(before, cmd.agent)) return { ok: false, reason: 'not_found' };
  const r = yield* get<TaskRow>(q.sql.cancel, { task_id: cmd.task_id, now: q.now });
  if (!r) {
    // Cancelling twice is a safe retry; the other terminal states cannot be cancelled.
    if (before.state === 'cancelled') return { ok: true, task: toTask(before) };
    if (before.state === 'expired') return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'not_claimable', state: before.state };
  }
  // Its claim's locks go with it (rule 10).
  if (before.state === 'claimed') yield* freeClaimLocks({ sql: locks, now: q.now }, before.claim_id);
  yield* emit(taskCancelled(r, cmd.agent, cmd.reason, before.state === 'claimed' ? before.claimed_by : null));
  return { ok: true, task: toTask(r) };
}
