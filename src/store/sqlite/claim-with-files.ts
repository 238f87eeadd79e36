/**
 * Rule 10 (store/shared/locks-claim.ts) in SQLite: the savepoint is a plain SAVEPOINT inside the caller's
 * BEGIN IMMEDIATE (the group commit's write savepoint, if any, encloses it); an undone claim's events are
 * dropped before they are published.
 */
import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { type ClaimFilesSql, claimWithFiles as program } from '../shared/locks-claim.js';
import { claimTask } from './claim.js';
import { LOCKS_SQL } from './locks.js';
import { inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

const CLAIM_FILES_SQL: ClaimFilesSql = {
  locks: LOCKS_SQL,
  claimTask,
  savepoint(tx: Tx) {
    stmt(tx.db, 'SAVEPOINT claim_with_files').run();
    return tx.events.length;
  },
  undo(tx: Tx, mark: number) {
    stmt(tx.db, 'ROLLBACK TO SAVEPOINT claim_with_files').run();
    tx.events.length = mark;
  },
};

export const claimWithFiles = (tx: Tx, cmd: ClaimCommand): Outcome<ClaimGrant> =>
  inTx(tx, CLAIM_FILES_SQL, (q) => program(q, cmd));
