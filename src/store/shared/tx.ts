/**
 * A store's write transaction, written once: `<store>/tx.ts` names its connection and the form of the events it
 * appends (SQLite: events as written, with their seq; PostgreSQL: new events, written with the COMMIT).
 */
export interface TxOf<Db, E> {
  /** The transaction's connection. */
  db: Db;
  /** The transaction's instant (ms): every row and event it writes is stamped with it. */
  now: number;
  /** The events it appended so far, heard once it commits. */
  events: E[];
  /**
   * Due rows moved before it ran (lazy expiry, SPEC §2: SQLite's group commit for the batch, PostgreSQL after
   * BEGIN); the sweep counts them.
   */
  moved: number;
  /** Work-tree locks this transaction ended that wait for git (settleEnded, SPEC §14); a submit reports it. */
  endedLocks?: number;
}
