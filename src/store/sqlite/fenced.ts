/**
 * Rule 5, fencing: heartbeat, release and submit each are one UPDATE whose
 * predicate names the current claim and a live lease. A stale claim_id can
 * never change a row; on a miss we only read to explain the loss.
 */

import { explainFenceLoss, explainSubmitLoss } from '../../core/board/rules.js';
import type { Task } from '../../core/model.js';
import type { FenceCommand, Outcome, SubmitCommand, TreeToVerify } from '../../core/ports.js';
import { integrationOf } from '../shared/integration-rows.js';
import { type TaskRow, toFacts, toTask, treeToVerify } from '../shared/rows.js';
import { taskFinished, taskRequeued } from '../shared/task-events.js';
import { blockerCompleted } from './deps.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const FENCE = `id = @task_id AND state = 'claimed' AND claim_id = @claim_id AND lease_until > @now`;
/** SPEC §14: the claim recorded its work tree (shared/rows.ts claimTreeOf): a submit with `unless_tree` stops. */
const TREE_KNOWN = 'claim_tree_of IS claim_id AND claim_worktree IS NOT NULL';

const current = (tx: Tx, id: string) => stmt(tx.db, 'SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;

function lost(tx: Tx, cmd: FenceCommand) {
  const row = current(tx, cmd.task_id);
  return explainFenceLoss(row ? toFacts(row) : null, cmd.claim_id, tx.now);
}

export function heartbeat(tx: Tx, cmd: FenceCommand & { lease_ms: number | null }): Outcome<{ lease_until: string }> {
  const row = stmt(
    tx.db,
    `UPDATE tasks SET lease_until = @now + COALESCE(@lease_ms, claim_lease_ms), updated_at = @now
     WHERE ${FENCE} RETURNING lease_until`,
  ).get({ ...cmd, now: tx.now }) as { lease_until: number } | undefined;
  if (!row) return lost(tx, cmd);
  return { ok: true, lease_until: new Date(row.lease_until).toISOString() };
}

/** Ends the claim (it is passed to onClaimEnded before the row changes). */
export function release(
  tx: Tx,
  cmd: FenceCommand & { to: string | null },
  onClaimEnded: (tx: Tx, row: TaskRow) => void,
): Outcome<{ task: Task }> {
  const before = current(tx, cmd.task_id);
  const row = stmt(
    tx.db,
    `UPDATE tasks SET state = 'queued', claimed_by = NULL, lease_until = NULL, claim_session = NULL,
            claim_end = 'released', updated_at = @now, for_agent = COALESCE(@to, for_agent),
            handed_by = CASE WHEN @to IS NULL THEN handed_by ELSE claimed_by END
     WHERE ${FENCE} RETURNING *`,
  ).get({ ...cmd, now: tx.now }) as TaskRow | undefined;
  if (!row || !before) return lost(tx, cmd);
  onClaimEnded(tx, before);
  appendEvent(tx, taskRequeued(row, before.claimed_by, cmd.to ? 'handoff' : 'released', { to: cmd.to }));
  return { ok: true, task: toTask(row) };
}

export function submit(
  tx: Tx,
  cmd: SubmitCommand,
  onClaimEnded: (tx: Tx, row: TaskRow) => void,
): Outcome<{ task: Task; replayed: boolean }> | TreeToVerify {
  const row = stmt(
    tx.db,
    `UPDATE tasks SET state = @status, result_status = @status, result = @result, result_hash = @result_hash,
            lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = @now,
            change_record = COALESCE(change_record, @change)
     WHERE ${FENCE} AND NOT (@unless_tree AND ${TREE_KNOWN}) RETURNING *`,
  ).get({
    unless_tree: cmd.unless_tree ? 1 : 0,
    change: cmd.change ? JSON.stringify(cmd.change) : null,
    task_id: cmd.task_id,
    claim_id: cmd.claim_id,
    status: cmd.status,
    result: JSON.stringify(cmd.result ?? null),
    result_hash: cmd.result_hash,
    now: tx.now,
  }) as TaskRow | undefined;
  if (row) {
    onClaimEnded(tx, row);
    appendEvent(tx, taskFinished(row, cmd.status));
    // SPEC §11: work with commits lands when its merge is recorded, not now.
    if (row.state === 'completed') blockerCompleted(tx, row, integrationOf(cmd) !== null);
    return { ok: true, task: toTask(row), replayed: false };
  }
  const now = current(tx, cmd.task_id);
  const verify = treeToVerify(now, cmd, tx.now);
  if (verify) return verify;
  const why = explainSubmitLoss(now ? toFacts(now) : null, cmd.claim_id, cmd.result_hash, tx.now);
  if (why.ok && now) return { ok: true, task: toTask(now), replayed: true };
  return why.ok ? { ok: false, reason: 'not_found' } : why;
}
