import pg from 'pg';
import { storeMigrations } from '../shared/migrations.js';

export type Pool = pg.Pool;
/** Anything that runs a query: the pool (autocommit reads) or one connection (inside a transaction). */
export interface Queryable {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

const INT8_OID = 20;

/** bigint columns hold ms times and seqs, far below 2^53: read them as numbers, not strings. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface ConnectionOptions {
  url: string;
  /** Keep coord's tables in this schema (created if missing) instead of the URL's search_path. */
  schema?: string | undefined;
  /** Pool size per daemon. */
  max?: number | undefined;
}

export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** What every connection of one store uses: the URL, number parsing, and the schema. */
export function clientConfig(opts: ConnectionOptions): pg.ClientConfig {
  return {
    connectionString: opts.url,
    types,
    application_name: 'coord',
    // A dead server must fail a request within seconds, not hang it.
    connectionTimeoutMillis: 5_000,
    // A peer that vanished without a reset (network partition) is noticed within a minute or so.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(opts.schema ? { options: `-c search_path=${quoteIdent(opts.schema)}` } : {}),
  };
}

/** Round trips a pool's connections made (one per query message, however many statements it holds). */
export interface QueryStats {
  queries: number;
}
const statsOf = new WeakMap<Pool, QueryStats>();
export const queryStats = (pool: Pool): QueryStats => statsOf.get(pool) ?? { queries: 0 };

export function makePool(opts: ConnectionOptions): Pool {
  const pool = new pg.Pool({ ...clientConfig(opts), max: opts.max ?? 10, idleTimeoutMillis: 30_000 });
  const stats: QueryStats = { queries: 0 };
  statsOf.set(pool, stats);
  // An idle connection broke (server restarted): the pool drops it and opens a new one on demand.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    // A connection that breaks while checked out between two queries must not crash the daemon
    // (an unhandled 'error' event): its next query fails, and the transaction discards it.
    client.on('error', () => {});
    // Counted for /v1/health and the bench (round trips per job).
    const query = client.query;
    client.query = function counted(this: pg.PoolClient, ...args: unknown[]) {
      stats.queries++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  });
  return pool;
}

/**
 * The store's migrations (shared/migrations.ts), applied in order, tracked in coord_migrations. One transaction
 * under an advisory lock: two daemons starting at once on one database apply each migration exactly once (the
 * second waits, then finds them applied). DDL is transactional in PostgreSQL, so a failed migration leaves
 * nothing half-done.
 */
export async function migrate(pool: Pool, schema: string | undefined): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('coord.migrate'), hashtext($1))", [schema ?? '']);
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    const current = await client.query<{ s: string | null }>('SELECT current_schema() AS s');
    if (!current.rows[0]?.s) {
      throw new Error('the search_path names no existing schema: create it first (CREATE SCHEMA coord)');
    }
    await client.query(`CREATE TABLE IF NOT EXISTS coord_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = await client.query<{ version: number }>('SELECT version FROM coord_migrations');
    const applied = new Set(done.rows.map((r) => r.version));
    for (const m of storeMigrations('postgres')) {
      if (applied.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO coord_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (e) {
    client.release(e instanceof Error ? e : true);
    throw e;
  }
}
