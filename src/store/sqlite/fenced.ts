/**
 * Rule 5, fencing: the release is one UPDATE whose predicate names the current claim and a live lease (the
 * heartbeat and the submit, the same statements in both stores, are shared/fence.ts's). A stale claim_id can
 * never change a row; on a miss we only read to explain the loss.
 */

import type { Task } from '../../core/model.js';
import type { FenceCommand, Outcome } from '../../core/ports.js';
import { CURRENT_ROW, FENCE, fenceLost, releaseWon } from '../shared/fence.js';
import type { TaskRow } from '../shared/rows.js';
import { LOCKS_SQL } from './locks.js';
import { inSqlite, inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

const RELEASE = `UPDATE tasks SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
            claim_end = 'released', updated_at = @now, for_agent = COALESCE(@to, for_agent),
            handed_by = CASE WHEN @to IS NULL THEN handed_by ELSE claimed_by END
     WHERE ${inSqlite(FENCE)} RETURNING *`;

const current = (tx: Tx, id: string) => stmt(tx.db, CURRENT_ROW).get({ id }) as TaskRow | undefined;

const lost = (tx: Tx, cmd: FenceCommand) => fenceLost(current(tx, cmd.task_id), cmd, tx.now);

/** Ends the claim (its locks go with it, freed by the claim_id of the row as it was). */
export function release(tx: Tx, cmd: FenceCommand & { to: string | null }): Outcome<{ task: Task }> {
  const before = current(tx, cmd.task_id);
  const row = stmt(tx.db, RELEASE).get({ ...cmd, now: tx.now }) as TaskRow | undefined;
  if (!row || !before) return lost(tx, cmd);
  return inTx(tx, LOCKS_SQL, (q) => releaseWon(q, before, row, cmd.to));
}
