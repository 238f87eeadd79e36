/**
 * Rule 10 (store/shared/locks-claim.ts) in SQLite, its savepoint: a plain SAVEPOINT inside the caller's
 * BEGIN IMMEDIATE (the group commit's write savepoint, if any, encloses it); an undone claim's events are
 * dropped before they are published.
 */
import { stmt, type Tx } from './tx.js';

export function savepoint(tx: Tx): number {
  stmt(tx.db, 'SAVEPOINT claim_with_files').run();
  return tx.events.length;
}

export function undo(tx: Tx, mark: number): void {
  stmt(tx.db, 'ROLLBACK TO SAVEPOINT claim_with_files').run();
  tx.events.length = mark;
}
