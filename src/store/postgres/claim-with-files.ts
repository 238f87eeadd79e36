/**
 * Rule 10 (store/shared/locks-claim.ts) in PostgreSQL: a SAVEPOINT in the caller's transaction; an undone
 * claim's events are dropped before they are written with the COMMIT.
 */
import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { type ClaimFilesSql, claimWithFiles as program } from '../shared/locks-claim.js';
import { claimTask } from './claim.js';
import { LOCKS_SQL } from './locks.js';
import { inTx } from './runner.js';
import type { Tx } from './tx.js';

const CLAIM_FILES_SQL: ClaimFilesSql = {
  locks: LOCKS_SQL,
  claimTask,
  async savepoint(tx: Tx) {
    await tx.db.query({ text: 'SAVEPOINT claim_with_files' });
    return tx.pending.length;
  },
  async undo(tx: Tx, mark: number) {
    await tx.db.query({ text: 'ROLLBACK TO SAVEPOINT claim_with_files' });
    tx.pending.length = mark;
  },
};

export const claimWithFiles = (tx: Tx, cmd: ClaimCommand): Promise<Outcome<ClaimGrant>> =>
  inTx(tx, CLAIM_FILES_SQL, (q) => program(q, cmd));
