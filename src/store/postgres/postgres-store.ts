import type { Store } from '../../core/ports.js';
import type { Clock } from '../../core/shared/clock.js';
import { ComposedStore, type StoreParts } from '../shared/composed-store.js';
import { claimsPort } from './claims-port.js';
import { CONNECTORS_SQL } from './connectors-sql.js';
import {
  type ConnectionOptions,
  clientConfig,
  makePool,
  migrate,
  type Pool,
  type QueryStats,
  queryStats,
} from './database.js';
import { SESSION_SQL } from './end-session.js';
import { EventFeed } from './event-feed.js';
import { RELEASE_SQL } from './fenced.js';
import { endedLocks } from './holds.js';
import { INTEGRATION_SQL } from './integration-sql.js';
import { LOCKS_SQL } from './locks.js';
import { guarded } from './pg-errors.js';
import { lastSeq } from './read.js';
import { inTx } from './runner.js';
import { PostgresCore } from './store-core.js';
import { tasksPort } from './tasks-port.js';

export interface PostgresStoreOptions extends ConnectionOptions {
  /** Tests only: drive time by hand instead of the database clock. */
  clock?: Clock | undefined;
  /** Tests only: the event feed's safety catch-up interval (default 5 s; event-feed.ts). */
  eventPollMs?: number | undefined;
}

/** The PostgreSQL store's own ports, its program in a write, and its tables (shared/composed-store.ts composes them). */
const PARTS: StoreParts<PostgresCore> = {
  tasksPort,
  claimsPort,
  inTx,
  sql: { integration: INTEGRATION_SQL, connectors: CONNECTORS_SQL, locks: LOCKS_SQL },
  claims: { release: RELEASE_SQL, session: SESSION_SQL },
  // One round trip (it runs after every submit): the statement reads the database clock itself.
  endedLocks: (core) => (board) => guarded(() => endedLocks(core.pool, core.clockNow(), board ?? null)),
};

/**
 * The store for teams: several daemons on several machines share one PostgreSQL database (store-core.ts).
 * It only wires the feature ports together.
 */
export class PostgresStore extends ComposedStore<PostgresCore, 'postgres'> implements Store {
  private constructor(core: PostgresCore) {
    super('postgres', core, PARTS, { databaseClock: core.databaseClock });
  }

  /** Connects, migrates (safe when several daemons start at once) and starts listening for events. */
  static async open(opts: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = makePool(opts);
    try {
      return await guarded(async () => {
        await migrate(pool, opts.schema);
        const core = new PostgresCore(pool, opts.clock);
        core.feed = await EventFeed.start(
          clientConfig(opts),
          pool,
          core.publish,
          await lastSeq(pool),
          opts.eventPollMs,
        );
        return new PostgresStore(core);
      }, 'start it, or check the --store URL');
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
  }

  get pool(): Pool {
    return this.core.pool;
  }
  /** Round trips to the database so far (/v1/health; the bench divides them by jobs). */
  get queryStats(): Readonly<QueryStats> {
    return queryStats(this.core.pool);
  }
}
