import { claimableBy, explainClaimLoss } from '../../core/board/rules.js';
import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { type TaskRow, toFacts, toGrant } from '../shared/rows.js';
import { taskClaimed } from '../shared/task-events.js';
import { openBlockers } from './deps.js';
import { row } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

export const SET_CLAIMED = `SET state = 'claimed', claimed_by = @agent, claim_id = @claim_id, lease_until = @lease_until::bigint,
      attempts = attempts + 1, updated_at = @now::bigint, claim_session = @session_id, claim_lease_ms = @lease_ms,
      claim_end = NULL`;

// Rule 1: one conditional write. Visibility is part of the predicate, so a private
// task of someone else can never be won, whatever the interleaving. Two daemons
// racing: the second UPDATE waits for the first's row lock, then re-checks state.
const CLAIM_BY_ID = `UPDATE tasks ${SET_CLAIMED}
  WHERE id = @task_id AND state = 'queued' AND expires_at > @now::bigint
    AND (for_agent IS NULL OR for_agent = @agent) AND blockers_open = 0
  RETURNING *`;

const params = (tx: Tx, cmd: ClaimCommand) => ({
  agent: cmd.agent,
  claim_id: cmd.claim_id,
  lease_until: tx.now + cmd.lease_ms,
  lease_ms: cmd.lease_ms,
  session_id: cmd.session_id,
  now: tx.now,
});

function won(tx: Tx, r: TaskRow): ClaimGrant {
  appendEvent(tx, taskClaimed(r));
  return toGrant(r, false);
}

export async function claimTask(tx: Tx, cmd: ClaimCommand): Promise<Outcome<ClaimGrant>> {
  // Each turn is the conditional write; a miss re-reads the row only to explain it.
  for (let turn = 0; ; turn++) {
    const r = await row<TaskRow>(tx.db, CLAIM_BY_ID, { ...params(tx, cmd), task_id: cmd.task_id });
    if (r) return { ok: true, ...won(tx, r) };
    const current = await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id: cmd.task_id });
    // Read committed: the holder may have released between our UPDATE and this read. Try the write again.
    const requeued =
      current?.state === 'queued' &&
      current.expires_at > tx.now &&
      current.blockers_open === 0 &&
      claimableBy({ for: current.for_agent }, cmd.agent);
    if (requeued && turn < 5) continue;
    const why = explainClaimLoss(current ? toFacts(current) : null, cmd.agent, tx.now);
    // Rule 2: the holder claiming again gets its existing claim, lease unchanged.
    if (why.ok && current) return { ok: true, ...toGrant(current, true) };
    // SPEC §11: name each open blocker with its state.
    if (!why.ok && why.reason === 'blocked' && current) return { ...why, blocked: await openBlockers(tx.db, current) };
    return why.ok ? { ok: false, reason: 'not_found' } : why;
  }
}
