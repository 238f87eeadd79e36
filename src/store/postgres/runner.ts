/**
 * Runs the programs of store/shared/ (program.ts) on PostgreSQL: asynchronously, one round trip per statement,
 * in the write's transaction (store-core.ts) or on the pool for a read.
 */
import { drive, type Prog, type Q, type StatementStep } from '../shared/program.js';
import type { Queryable } from './database.js';
import { query } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

/** A statement as PostgreSQL runs it: one round trip. */
async function answer(db: Queryable, s: StatementStep): Promise<unknown> {
  const res = await query(db, s.text, s.params);
  return s.op === 'get' ? res.rows[0] : s.op === 'all' ? res.rows : (res.rowCount ?? 0);
}

/** Runs a program to its end; `tx` when it writes (its events are written with the COMMIT). */
export async function runAsync<T>(prog: Prog<T>, db: Queryable, tx?: Tx): Promise<T> {
  return drive(prog, tx, appendEvent, (s) => answer(db, s));
}

/** A program in a write transaction the caller already runs in (another feature's code). */
export const inTx = <S, T>(tx: Tx, sql: S, prog: (q: Q<S>) => Prog<T>): Promise<T> =>
  runAsync(prog({ sql, now: tx.now }), tx.db, tx);
