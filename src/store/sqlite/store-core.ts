/**
 * What a port of the SQLite store (integration-port.ts, connectors-port.ts, worktrees-port.ts,
 * messages-port.ts) needs of the store: the file, the clock, and how to read and write. SqliteStore
 * (sqlite-store.ts) composes the ports into the Store as core/ports.ts composes its interface.
 */
import type { Clock } from '../../core/clock.js';
import type { TaskRow } from '../shared/rows.js';
import type { Db } from './database.js';
import type { Tx } from './tx.js';

export interface SqliteCore {
  readonly db: Db;
  readonly clock: Clock;
  /** One write in the next group commit (due rows moved first); resolves once committed. */
  write<T>(fn: (tx: Tx) => T): Promise<T>;
  /** A read; a storage fault answers store_unavailable. */
  read<T>(fn: () => T): T;
  /** Runs inside the transaction that ends a claim (rule 10: its files are freed with it). */
  readonly claimEnded: (tx: Tx, row: TaskRow) => void;
}
