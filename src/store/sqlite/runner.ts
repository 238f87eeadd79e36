/**
 * Runs the programs of store/shared/ (program.ts) on SQLite: synchronously, in the caller's turn — inside the
 * write's better-sqlite3 transaction, which must stay synchronous — each statement prepared once per connection.
 */
import { drive, type Prog, type Q, type StatementStep } from '../shared/program.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

// What SQLite does without: PostgreSQL's casts, and its row locks (SQLite has one writer at a time).
const PG_ONLY = /::[a-z_]+(\[\])?|\s+FOR (NO KEY UPDATE|UPDATE|KEY SHARE|SHARE)( OF \w+)?\b/g;
const texts = new Map<string, string>();

/** A statement written once for both dialects (store/shared/…-sql.ts) as SQLite runs it. */
export function inSqlite(text: string): string {
  let t = texts.get(text);
  if (t === undefined) {
    t = text.replace(PG_ONLY, '');
    texts.set(text, t);
  }
  return t;
}

/** SQLite binds numbers, strings and null: a boolean goes as 1 or 0, a list as JSON text (read with json_each). */
function bindable(params: object): object {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(params)) {
    if (typeof v === 'boolean' || Array.isArray(v)) {
      out ??= { ...params };
      out[k] = typeof v === 'boolean' ? Number(v) : JSON.stringify(v);
    }
  }
  return out ?? params;
}

/** A statement as SQLite runs it: prepared once per connection, synchronously. */
function answer(db: Db, s: StatementStep): unknown {
  const statement = stmt(db, inSqlite(s.text));
  const params = bindable(s.params);
  if (s.op === 'get') return statement.get(params);
  if (s.op === 'all') return statement.all(params);
  return statement.run(params).changes;
}

/** Runs a program to its end in the caller's turn (every answer is plain); `tx` when it writes (its events go there). */
export function runSync<T>(prog: Prog<T>, db: Db, tx?: Tx): T {
  return drive(prog, tx, appendEvent, (s) => answer(db, s)) as T;
}

/** A program in a write transaction the caller already runs in (another feature's code). */
export const inTx = <S, T>(tx: Tx, sql: S, prog: (q: Q<S>) => Prog<T>): T =>
  runSync(prog({ sql, now: tx.now }), tx.db, tx);
