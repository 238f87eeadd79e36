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
import { row } from './sql.js';
import type { Tx } from './tx.js';

type ClaimEnded = (tx: Tx, row: TaskRow) => Promise<void>;
type Command<K extends keyof ClaimsPort> = Parameters<ClaimsPort[K]>[0];

export async function releaseWithNote(tx: Tx, cmd: Command<'release'>, ended: ClaimEnded) {
  const holder = cmd.note ? await holderOf(tx, cmd.task_id, cmd.claim_id) : null;
  const released = await release(tx, cmd, ended);
  return inTx(tx, MESSAGES_SQL, (q) => withNote(q, released, cmd.note, holder, 'release', true));
}

/** The general submit: a note, a change record or holds to take (SPEC §14) come this way. */
export async function submitWithSteps(tx: Tx, cmd: Command<'submit'>, ended: ClaimEnded): Promise<SubmitOutcome> {
  const out = await submit(tx, cmd, ended);
  if (!out.ok && out.reason === 'work_tree') return out;
  const steps = submitSteps(out, cmd);
  if (steps.hold) await holdAtSubmit(tx, steps.hold);
  if (steps.queue) {
    const queue = steps.queue;
    await inTx(tx, INTEGRATION_SQL, (q) => queueIntegration(q, queue));
  }
  await inTx(tx, MESSAGES_SQL, (q) => withNote(q, out, cmd.note, steps.author, 'submit', steps.changed));
  return submitted(out, tx.endedLocks);
}

export async function cancelWithNote(tx: Tx, cmd: Command<'cancel'>, ended: ClaimEnded) {
  // Locked, so "was it open" is still true when the cancel runs (a second cancel writes no second note).
  const open = cmd.note ? isOpenState(await lockedState(tx, cmd.task_id)) : false;
  const cancelled = await inTx(tx, CANCEL_SQL, (q) => cancel(q, cmd, ended));
  return inTx(tx, MESSAGES_SQL, (q) => withNote(q, cancelled, cmd.note, cmd.agent, 'cancel', open));
}

/** The agent whose claim this is (a claim_id names one claim of one agent), for a release's note. */
const holderOf = async (tx: Tx, taskId: string, claimId: string): Promise<string | null> =>
  (
    await row<{ claimed_by: string | null }>(
      tx.db,
      'SELECT claimed_by FROM tasks WHERE id = @id AND claim_id = @claim_id',
      {
        id: taskId,
        claim_id: claimId,
      },
    )
  )?.claimed_by ?? null;

/** The task's state; the row is locked until the cancel runs. */
const lockedState = async (tx: Tx, taskId: string): Promise<string | undefined> =>
  (await row<{ state: string }>(tx.db, 'SELECT state FROM tasks WHERE id = @id FOR NO KEY UPDATE', { id: taskId }))
    ?.state;
