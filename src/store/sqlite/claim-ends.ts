/**
 * A claim's ends in one transaction each: release, submit and cancel with their note (SPEC §12), a submit's
 * holds (§14) and its entry to the integration queue (§15), as shared/claim-ends.ts decides them.
 */
import type { SubmitOutcome } from '../../core/ports.js';
import { CANCEL_SQL, cancel } from '../shared/cancel.js';
import { isOpenState, submitSteps, submitted } from '../shared/claim-ends.js';
import { queueIntegration } from '../shared/integration.js';
import { withNote } from '../shared/notes.js';
import type { TaskRow } from '../shared/rows.js';
import type { ClaimsPort } from '../shared/store-ports.js';
import { release, submit } from './fenced.js';
import { holdAtSubmit } from './holds.js';
import { INTEGRATION_SQL } from './integration-sql.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

type ClaimEnded = (tx: Tx, row: TaskRow) => void;
type Command<K extends keyof ClaimsPort> = Parameters<ClaimsPort[K]>[0];

export function releaseWithNote(tx: Tx, cmd: Command<'release'>, ended: ClaimEnded) {
  const holder = cmd.note ? holderOf(tx, cmd.task_id, cmd.claim_id) : null;
  const out = release(tx, cmd, ended);
  return inTx(tx, MESSAGES_SQL, (q) => withNote(q, out, cmd.note, holder, 'release', true));
}

export function submitWithSteps(tx: Tx, cmd: Command<'submit'>, ended: ClaimEnded): SubmitOutcome {
  const out = submit(tx, cmd, ended);
  if (!out.ok && out.reason === 'work_tree') return out;
  const steps = submitSteps(out, cmd);
  if (steps.hold) holdAtSubmit(tx, steps.hold);
  if (steps.queue) {
    const queue = steps.queue;
    inTx(tx, INTEGRATION_SQL, (q) => queueIntegration(q, queue));
  }
  inTx(tx, MESSAGES_SQL, (q) => withNote(q, out, cmd.note, steps.author, 'submit', steps.changed));
  return submitted(out, tx.endedLocks);
}

export function cancelWithNote(tx: Tx, cmd: Command<'cancel'>, ended: ClaimEnded) {
  const open = cmd.note ? isOpenState(stateOf(tx, cmd.task_id)) : false;
  const out = inTx(tx, CANCEL_SQL, (q) => cancel(q, cmd, ended));
  return inTx(tx, MESSAGES_SQL, (q) => withNote(q, out, cmd.note, cmd.agent, 'cancel', open));
}

/** The agent whose claim this is (a claim_id names one claim of one agent), for a release's note. */
const holderOf = (tx: Tx, taskId: string, claimId: string): string | null =>
  (
    stmt(tx.db, 'SELECT claimed_by FROM tasks WHERE id = ? AND claim_id = ?').get(taskId, claimId) as
      | { claimed_by: string | null }
      | undefined
  )?.claimed_by ?? null;

const stateOf = (tx: Tx, taskId: string): string | undefined =>
  (stmt(tx.db, 'SELECT state FROM tasks WHERE id = ?').get(taskId) as { state: string } | undefined)?.state;
