/**
 * Rule 5, fencing: the release is one UPDATE whose predicate names the current claim and a live lease (the
 * heartbeat and the submit, the same statements in both stores, are shared/fence.ts's). A stale claim_id can
 * never change a row; on a miss we only read to explain the loss.
 */

import type { Task } from '../../core/model.js';
import type { FenceCommand, Outcome } from '../../core/ports.js';
import { claimedBefore, type EndedClaimRow } from '../shared/due.js';
import { CURRENT_ROW, fenceLost, releaseWon } from '../shared/fence.js';
import type { TaskRow } from '../shared/rows.js';
import { LOCKS_SQL } from './locks.js';
import { inTx } from './runner.js';
import { row } from './sql.js';
import type { Tx } from './tx.js';

const FENCE_T = `t.id = @task_id AND t.state = 'claimed' AND t.claim_id = @claim_id AND t.lease_until > @now::bigint`;

export const currentRow = (tx: Tx, id: string) => row<TaskRow>(tx.db, CURRENT_ROW, { id });

const lost = async (tx: Tx, cmd: FenceCommand) => fenceLost(await currentRow(tx, cmd.task_id), cmd, tx.now);

// The holder is cleared by the update; the locked old version tells who it was.
const RELEASE = `UPDATE tasks AS t SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
         claim_end = 'released', updated_at = @now::bigint, for_agent = COALESCE(@to::text, t.for_agent),
         handed_by = CASE WHEN @to::text IS NULL THEN t.handed_by ELSE old.claimed_by END
  FROM (SELECT id, claimed_by, claim_session, lease_until FROM tasks WHERE id = @task_id FOR NO KEY UPDATE) AS old
  WHERE t.id = old.id AND ${FENCE_T}
  RETURNING t.*, old.claimed_by AS old_claimed_by, old.claim_session AS old_claim_session,
            old.lease_until AS old_lease_until`;

/** Ends the claim (its locks go with it, freed by the claim_id of the row as it was). */
export async function release(tx: Tx, cmd: FenceCommand & { to: string | null }): Promise<Outcome<{ task: Task }>> {
  const r = await row<EndedClaimRow>(tx.db, RELEASE, { ...cmd, now: tx.now });
  if (!r) return lost(tx, cmd);
  const { old_claimed_by, old_claim_session, old_lease_until, ...after } = r;
  return inTx(tx, LOCKS_SQL, (q) => releaseWon(q, claimedBefore(r), after, cmd.to));
}
