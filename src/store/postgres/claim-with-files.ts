/**
 * Rule 10 (store/shared/locks-claim.ts) in PostgreSQL, its savepoint: a SAVEPOINT in the caller's transaction;
 * an undone claim's events are dropped before they are written with the COMMIT.
 */
import type { Tx } from './tx.js';

export async function savepoint(tx: Tx): Promise<number> {
  await tx.db.query({ text: 'SAVEPOINT claim_with_files' });
  return tx.pending.length;
}

export async function undo(tx: Tx, mark: number): Promise<void> {
  await tx.db.query({ text: 'ROLLBACK TO SAVEPOINT claim_with_files' });
  tx.pending.length = mark;
}
