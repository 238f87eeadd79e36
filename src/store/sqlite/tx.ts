import type Database from 'better-sqlite3';
import type { CoordEvent } from '../../core/model.js';
import type { NewEvent } from '../shared/new-event.js';
import type { TxOf } from '../shared/tx.js';
import type { Db } from './database.js';

/** Prepared statements, compiled once per connection. */
const cache = new WeakMap<Db, Map<string, Database.Statement>>();
export function stmt(db: Db, sql: string): Database.Statement {
  let m = cache.get(db);
  if (!m) {
    m = new Map();
    cache.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/** What one write transaction sees (shared/tx.ts): its events are appended as written, with their seq. */
export type Tx = TxOf<Db, CoordEvent>;

const APPEND = `INSERT INTO events (board, type, task_id, lock_id, agent, at, data)
     VALUES (@board, @type, @task_id, @lock_id, @agent, @at, @data)`;
const appends = new WeakMap<Db, Database.Statement>();

/**
 * Appends to the audit trail in the same transaction as the change it records. The event is built from what
 * was written and the new row's seq (no RETURNING row to read back and convert).
 */
export function appendEvent(tx: Tx, e: NewEvent): void {
  let append = appends.get(tx.db);
  if (!append) {
    append = tx.db.prepare(APPEND);
    appends.set(tx.db, append);
  }
  const data = JSON.stringify(e.data ?? {});
  const row = {
    board: e.board,
    type: e.type,
    task_id: e.task_id ?? null,
    lock_id: e.lock_id ?? null,
    agent: e.agent ?? null,
    at: tx.now,
    data,
  };
  const seq = Number(append.run(row).lastInsertRowid);
  // What toEvent would make of the row read back: data through JSON, as it comes out of the file.
  tx.events.push({
    seq,
    type: e.type,
    board: e.board,
    task_id: row.task_id,
    lock_id: row.lock_id,
    agent: row.agent,
    at: new Date(tx.now).toISOString(),
    data: JSON.parse(data),
  });
}
