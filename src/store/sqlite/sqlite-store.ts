import type { Store } from '../../core/ports.js';
import { ComposedStore, type StoreParts } from '../shared/composed-store.js';
import { claimsPort } from './claims-port.js';
import { CONNECTORS_SQL } from './connectors-sql.js';
import type { Db, Durability } from './database.js';
import { SESSION_SQL } from './end-session.js';
import { RELEASE_SQL } from './fenced.js';
import type { GroupCommitStats } from './group-commit.js';
import { endedLocks } from './holds.js';
import { INTEGRATION_SQL } from './integration-sql.js';
import { LOCKS_SQL } from './locks.js';
import { inTx } from './runner.js';
import { SqliteCore, type SqliteStoreOptions } from './store-core.js';
import { tasksPort } from './tasks-port.js';

export type { SqliteStoreOptions } from './store-core.js';

/** The SQLite store's own ports, its program in a write, and its tables (shared/composed-store.ts composes them). */
const PARTS: StoreParts<SqliteCore> = {
  tasksPort,
  claimsPort,
  inTx,
  sql: { integration: INTEGRATION_SQL, connectors: CONNECTORS_SQL, locks: LOCKS_SQL },
  claims: { release: RELEASE_SQL, session: SESSION_SQL },
  endedLocks: (core) => async (board) => core.read(() => endedLocks(core.db, core.clock.now(), board ?? null)),
};

/**
 * The embedded default store: one SQLite file, WAL, durable by default, writes group-committed (store-core.ts).
 * It only wires the feature ports together.
 */
export class SqliteStore extends ComposedStore<SqliteCore, 'sqlite'> implements Store {
  constructor(opts: SqliteStoreOptions) {
    super('sqlite', new SqliteCore(opts), PARTS);
  }

  get db(): Db {
    return this.core.db;
  }
  get durability(): Durability {
    return this.core.durability;
  }
  /** Batches committed and writes answered so far (tests count commits with it). */
  get commitStats(): Readonly<GroupCommitStats> {
    return this.core.commitStats;
  }
}
