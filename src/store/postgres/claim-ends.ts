/** A claim's ends (store/shared/claim-ends-store.ts) in PostgreSQL: its fenced release and submit, in the write's transaction. */
import type { SubmitOutcome } from '../../core/ports.js';
import type { Command } from '../shared/claim-ends-store.js';
import * as ends from '../shared/claim-ends-store.js';
import type { TaskRow } from '../shared/rows.js';
import { release, submit } from './fenced.js';
import { INTEGRATION_SQL } from './integration-sql.js';
import { LOCKS_SQL } from './locks.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import type { Tx } from './tx.js';

type ClaimEnded = (tx: Tx, row: TaskRow) => Promise<void>;

const SQL: ends.ClaimEndsSql<ClaimEnded> = {
  ...ends.CLAIM_ENDS_COMMON,
  messages: MESSAGES_SQL,
  integration: INTEGRATION_SQL,
  locks: LOCKS_SQL,
  release,
  submit,
};

export const releaseWithNote = (tx: Tx, cmd: Command<'release'>, ended: ClaimEnded) =>
  inTx(tx, SQL, (q) => ends.releaseWithNote(q, cmd, ended));

export const submitWithSteps = (tx: Tx, cmd: Command<'submit'>, ended: ClaimEnded): Promise<SubmitOutcome> =>
  inTx(tx, SQL, (q) => ends.submitWithSteps(q, cmd, ended));

export const cancelWithNote = (tx: Tx, cmd: Command<'cancel'>, ended: ClaimEnded) =>
  inTx(tx, SQL, (q) => ends.cancelWithNote(q, cmd, ended));
