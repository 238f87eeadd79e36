/** What every store's write transaction (`<store>/tx.ts`) carries beside its connection and its events. */
export interface TxBase {
  /** The transaction's instant (ms): every row and event it writes is stamped with it. */
  now: number;
  /** Work-tree locks this transaction ended that wait for git (settleEnded, SPEC §14); a submit reports it. */
  endedLocks?: number;
}
