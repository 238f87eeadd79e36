import type Database from 'better-sqlite3';
import type { CoordEvent } from '../../core/model.js';
import type { NewEvent } from '../shared/new-event.js';
import { type EventRow, toEvent } from '../shared/rows.js';
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

/** What one write transaction sees: its connection, its instant, and the events it appends. */
export interface Tx {
  db: Db;
  now: number;
  events: CoordEvent[];
}

/** Appends to the audit trail in the same transaction as the change it records. */
export function appendEvent(tx: Tx, e: NewEvent): void {
  const row = stmt(
    tx.db,
    `INSERT INTO events (board, type, task_id, lock_id, agent, at, data)
     VALUES (@board, @type, @task_id, @lock_id, @agent, @at, @data) RETURNING *`,
  ).get({
    board: e.board,
    type: e.type,
    task_id: e.task_id ?? null,
    lock_id: e.lock_id ?? null,
    agent: e.agent ?? null,
    at: tx.now,
    data: JSON.stringify(e.data ?? {}),
  }) as EventRow;
  tx.events.push(toEvent(row));
}
