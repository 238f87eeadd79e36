import type { Connectors } from '../../core/connectors/connector-ports.js';
import type { IntegrationStore } from '../../core/integration/integration-ports.js';
import type { NotesAndMessages } from '../../core/messages/message-ports.js';
import type { EventListener, Store, StoreCapabilities } from '../../core/ports.js';
import type { WorktreeStore } from '../../core/worktrees/worktree-ports.js';
import { connectorsPort } from '../shared/connectors.js';
import { integrationPort } from '../shared/integration.js';
import { messagesPort } from '../shared/messages.js';
import { type ClaimsPort, type LocksPort, subscribeTo, type TasksPort } from '../shared/store-ports.js';
import { worktreesPort } from '../shared/worktrees.js';
import { claimsPort } from './claims-port.js';
import { CONNECTORS_SQL } from './connectors-sql.js';
import type { Db, Durability } from './database.js';
import type { GroupCommitStats } from './group-commit.js';
import { endedLocks } from './holds.js';
import { INTEGRATION_SQL } from './integration-sql.js';
import { locksPort } from './locks-port.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { runner } from './runner.js';
import { SqliteCore, type SqliteStoreOptions } from './store-core.js';
import { tasksPort } from './tasks-port.js';
import type { Tx } from './tx.js';
import { WORKTREES_SQL } from './worktrees-sql.js';

export type { SqliteStoreOptions } from './store-core.js';

export const SQLITE_CAPABILITIES: StoreCapabilities = { crossProcessEvents: false, databaseClock: false };

/**
 * The ports the store is composed of (as core/ports.ts composes Store): each is built in the constructor from
 * its own file over the store's core (store-core.ts) — a port object typed by its interface, so a method
 * missing there fails to compile there.
 */
export interface SqliteStore
  extends TasksPort,
    ClaimsPort,
    LocksPort,
    IntegrationStore,
    Connectors,
    WorktreeStore,
    NotesAndMessages {}

/**
 * The embedded default store: one SQLite file, WAL, durable by default, writes group-committed (store-core.ts).
 * It only wires the feature ports together.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly capabilities = SQLITE_CAPABILITIES;
  private readonly core: SqliteCore;

  constructor(opts: SqliteStoreOptions) {
    const core = new SqliteCore(opts);
    this.core = core;
    Object.assign(
      this,
      tasksPort(core),
      claimsPort(core),
      locksPort(core),
      integrationPort(runner(core, INTEGRATION_SQL)),
      connectorsPort(runner(core, CONNECTORS_SQL)),
      worktreesPort(runner(core, WORKTREES_SQL), async (board) =>
        core.read(() => endedLocks(core.db, core.clock.now(), board ?? null)),
      ),
      messagesPort(runner(core, MESSAGES_SQL)),
    );
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
  /** One write in the next group commit (store-core.ts). */
  write<T>(fn: (tx: Tx) => T): Promise<T> {
    return this.core.write(fn);
  }
  subscribe(listener: EventListener): () => void {
    return subscribeTo(this.core.listeners, listener);
  }
  async close() {
    this.core.close();
  }
}
