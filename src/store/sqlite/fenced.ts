/**
 * Rule 5, fencing: release and submit each are one UPDATE whose predicate names the current claim and a live
 * lease (the heartbeat, the same statement in both stores, is shared/fence.ts's). A stale claim_id can never
 * change a row; on a miss we only read to explain the loss.
 */

import type { Task } from '../../core/model.js';
import type { FenceCommand, Outcome, SubmitCommand, TreeToVerify } from '../../core/ports.js';
import {
  CURRENT_ROW,
  FENCE,
  type FenceWonSql,
  fenceLost,
  releaseWon,
  submitMissed,
  submitParams,
  submitSql,
  submitWon,
} from '../shared/fence.js';
import type { TaskRow } from '../shared/rows.js';
import { DEPS_SQL } from './deps-sql.js';
import { LOCKS_SQL } from './locks.js';
import { inSqlite, inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

/** SPEC §14: the claim recorded its work tree (shared/rows.ts claimTreeOf): a submit with `unless_tree` stops. */
const SUBMIT = inSqlite(submitSql('claim_tree_of IS claim_id AND claim_worktree IS NOT NULL'));

const RELEASE = `UPDATE tasks SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
            claim_end = 'released', updated_at = @now, for_agent = COALESCE(@to, for_agent),
            handed_by = CASE WHEN @to IS NULL THEN handed_by ELSE claimed_by END
     WHERE ${inSqlite(FENCE)} RETURNING *`;

/** What a release or submit that won runs next (shared/fence.ts): the claim's end, and its dependents'. */
const WON: FenceWonSql = { locks: LOCKS_SQL, deps: DEPS_SQL };

const current = (tx: Tx, id: string) => stmt(tx.db, CURRENT_ROW).get({ id }) as TaskRow | undefined;

const lost = (tx: Tx, cmd: FenceCommand) => fenceLost(current(tx, cmd.task_id), cmd, tx.now);

/** Ends the claim (its locks go with it, freed by the claim_id of the row as it was). */
export function release(tx: Tx, cmd: FenceCommand & { to: string | null }): Outcome<{ task: Task }> {
  const before = current(tx, cmd.task_id);
  const row = stmt(tx.db, RELEASE).get({ ...cmd, now: tx.now }) as TaskRow | undefined;
  if (!row || !before) return lost(tx, cmd);
  return inTx(tx, WON, (q) => releaseWon(q, before, row, cmd.to));
}

export function submit(tx: Tx, cmd: SubmitCommand): Outcome<{ task: Task; replayed: boolean }> | TreeToVerify {
  const row = stmt(tx.db, SUBMIT).get({ ...submitParams(cmd, tx.now), unless_tree: cmd.unless_tree ? 1 : 0 }) as
    | TaskRow
    | undefined;
  if (row) return inTx(tx, WON, (q) => submitWon(q, row, cmd));
  return submitMissed(current(tx, cmd.task_id), cmd, tx.now);
}
