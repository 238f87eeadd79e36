/**
 * What a port of the PostgreSQL store (integration-port.ts, connectors-port.ts, worktrees-port.ts,
 * messages-port.ts) needs of the store: the pool, now, and how to write. PostgresStore (postgres-store.ts)
 * composes the ports into the Store as core/ports.ts composes its interface.
 */
import type { Pool } from './database.js';
import type { Tx } from './tx.js';

export interface PostgresCore {
  readonly pool: Pool;
  /** One write transaction (due rows moved first, retried on a deadlock), delivered to subscribers after COMMIT. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Now, without looking for due rows: the injected clock's, or the database's. */
  now(): Promise<number>;
  /** The injected clock's time, or null: a statement takes the database's itself (no round trip of its own). */
  clockNow(): number | null;
}
