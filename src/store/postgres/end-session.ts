/**
 * Rule 13: a session's owner is gone (its `coord mcp` process died or its HTTP
 * session closed). In one transaction its claims go back to the queue and its
 * locks are freed — at once, not when their leases would have run out.
 */
import type { SessionEnded } from '../../core/ports.js';
import type { TaskRow } from '../shared/rows.js';
import { taskRequeued } from '../shared/task-events.js';
import { claimEnded, freeSessionLocks } from './locks.js';
import { rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

// By predicate: a claim of the session that ended meanwhile is simply not matched.
const REQUEUE = `UPDATE tasks AS t SET state = 'queued', claimed_by = NULL, claim_session = NULL, lease_until = NULL,
         updated_at = @now::bigint, claim_end = 'session_ended'
  FROM (SELECT id, claimed_by, lease_until FROM tasks WHERE state = 'claimed' AND claim_session = @session
        ORDER BY id FOR NO KEY UPDATE) AS old
  WHERE t.id = old.id AND t.state = 'claimed' AND t.claim_session = @session
  RETURNING t.*, old.claimed_by AS old_claimed_by, old.lease_until AS old_lease_until`;

type RequeuedRow = TaskRow & { old_claimed_by: string; old_lease_until: number };

export async function endSession(tx: Tx, sessionId: string): Promise<SessionEnded> {
  const locks = await rows<{ lock_id: string }>(
    tx.db,
    'SELECT lock_id FROM locks WHERE session_id = @session ORDER BY lock_id',
    { session: sessionId },
  );
  const requeued = await rows<RequeuedRow>(tx.db, REQUEUE, { session: sessionId, now: tx.now });
  requeued.sort((a, b) => a.id.localeCompare(b.id));
  const claims = requeued.map((r) => ({ id: r.id, claimed_by: r.old_claimed_by, claim_worktree: r.claim_worktree }));
  for (const { old_claimed_by, old_lease_until, ...r } of requeued) {
    const before: TaskRow = {
      ...r,
      state: 'claimed',
      claimed_by: old_claimed_by,
      claim_session: sessionId,
      lease_until: old_lease_until,
      claim_end: null,
    };
    await claimEnded(tx, before);
    appendEvent(tx, taskRequeued(r, old_claimed_by, 'session_ended'));
  }
  // The claims' own locks went with them (claimEnded); the session's plain locks go now.
  await freeSessionLocks(tx, sessionId, claims);
  return { requeued: requeued.map((r) => r.id), released: locks.map((l) => l.lock_id) };
}
