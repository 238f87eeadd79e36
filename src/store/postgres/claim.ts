import { claimableBy } from '../../core/board/rules.js';
import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { CLAIM_BY_ID, claimLost, claimParams } from '../shared/claim.js';
import { type TaskRow, toGrant } from '../shared/rows.js';
import { taskClaimed } from '../shared/task-events.js';
import { DEPS_SQL } from './deps-sql.js';
import { runAsync } from './runner.js';
import { row } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

// Two daemons racing: the second UPDATE waits for the first's row lock, then re-checks state.
const params = (tx: Tx, cmd: ClaimCommand) => claimParams(tx.now, cmd);

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
    return runAsync(claimLost(DEPS_SQL, current, cmd.agent, tx.now), tx.db);
  }
}
