/**
 * What every port of the PostgreSQL store (tasks-port.ts, claims-port.ts, and the shared programs' runners, shared/composed-store.ts …)
 * needs of the store: the pool, now, and how to read and write. Every operation is one transaction (READ
 * COMMITTED); every winning write is one conditional statement; time is the database's. PostgresStore
 * (postgres-store.ts) composes the ports into the Store as core/ports.ts composes its interface.
 */
import type pg from 'pg';
import type { CoordEvent } from '../../core/model.js';
import type { Clock } from '../../core/shared/clock.js';
import type { Prog } from '../shared/program.js';
import { StoreCore } from '../shared/store-core.js';
import type { Pool, Queryable } from './database.js';
import { DB_NOW, moveDue, type Probe, probeSql } from './due.js';
import type { EventFeed } from './event-feed.js';
import { LOCKS_SQL } from './locks.js';
import { guarded, isConnectionError, isRetryable } from './pg-errors.js';
import { runAsync } from './runner.js';
import { commit, type Tx } from './tx.js';

const RETRIES = 5;

export class PostgresCore extends StoreCore {
  feed: EventFeed | undefined;

  constructor(
    readonly pool: Pool,
    private readonly clock: Clock | undefined,
  ) {
    super();
  }

  /** Whether time is the database's (no clock injected by a test). */
  get databaseClock(): boolean {
    return this.clock === undefined;
  }

  /** The injected clock's time, or null: a statement takes the database's itself (no round trip of its own). */
  clockNow(): number | null {
    return this.clock ? this.clock.now() : null;
  }

  /** Delivers the events of a write that committed outside write() (the one-round-trip statements). */
  async committed(events: CoordEvent[]): Promise<void> {
    await this.feed?.committed(events);
  }

  /**
   * One write transaction: BEGIN and the due probe share a round trip, due rows
   * move first, then `fn`, then the events, COMMIT, and delivery to subscribers.
   * A deadlock or serialization failure did nothing and runs again.
   */
  async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return guarded(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const { result, events } = await this.attempt(fn);
          await this.committed(events);
          return result;
        } catch (e) {
          if (!isRetryable(e) || attempt >= RETRIES) throw e;
        }
      }
    });
  }

  private async attempt<T>(fn: (tx: Tx) => Promise<T>): Promise<{ result: T; events: CoordEvent[] }> {
    const client = await this.pool.connect();
    let broken: Error | boolean | undefined;
    try {
      const probe = await begin(client, 'BEGIN', this.clockNow());
      const tx: Tx = { db: client, now: probe.now, events: [], moved: 0 };
      if (probe.due) tx.moved = await moveDue(tx, LOCKS_SQL);
      const result = await fn(tx);
      return { result, events: await commit(tx) };
    } catch (e) {
      broken = isConnectionError(e) ? (e as Error) : await rollback(client);
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Now, without looking for due rows (a read that never writes): the injected clock's, or the database's. */
  async now(): Promise<number> {
    const injected = this.clockNow();
    if (injected !== null) return injected;
    return guarded(async () => (await this.pool.query<{ now: number }>(`SELECT ${DB_NOW} AS now`)).rows[0]!.now);
  }

  /** A program that only reads (shared/program.ts), on the pool. */
  readProgram = <T>(prog: Prog<T>): Promise<T> => guarded(() => runAsync(prog, this.pool));

  /** Before a single-statement read (fresh): one round trip. */
  protected async probeDue(): Promise<Probe> {
    return (await this.pool.query<Probe>(probeSql(this.clockNow()))).rows[0]!;
  }

  protected emptyWrite = () => this.write(async () => undefined);

  /** Several reads from one snapshot (REPEATABLE READ, READ ONLY), after moving anything due. */
  async snapshot<T>(fn: (db: Queryable, now: number) => Promise<T>): Promise<T> {
    for (;;) {
      const client = await this.pool.connect();
      let broken: Error | boolean | undefined;
      try {
        const probe = await begin(client, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', this.clockNow());
        if (!probe.due) {
          const out = await fn(client, probe.now);
          await client.query('COMMIT');
          return out;
        }
        await client.query('ROLLBACK');
      } catch (e) {
        broken = isConnectionError(e) ? (e as Error) : await rollback(client);
        throw e;
      } finally {
        client.release(broken);
      }
      await this.write(async () => undefined);
    }
  }

  protected async release(): Promise<void> {
    await this.feed?.close();
    await this.pool.end().catch(() => {});
  }
}

/** BEGIN and the now/due probe in one round trip (simple protocol: two statements, one message). */
async function begin(client: pg.PoolClient, begin: string, now: number | null): Promise<Probe> {
  const results = (await client.query(`${begin}; ${probeSql(now)}`)) as unknown as pg.QueryResult<Probe>[];
  const probe = results[1]?.rows[0];
  if (!probe) throw new Error('due probe returned no row');
  return probe;
}

/** Ends a failed transaction; a connection that cannot even roll back is discarded. */
const rollback = (client: pg.PoolClient): Promise<boolean | undefined> =>
  client.query('ROLLBACK').then(
    () => undefined,
    () => true,
  );
