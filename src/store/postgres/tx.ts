/**
 * What one write transaction sees: its connection, its instant, and the
 * events it appends. Events are buffered and written last, in one statement,
 * under a transaction-scoped advisory lock held until COMMIT: seq order is
 * then commit order, so "everything after seq N" is a complete answer for
 * cursors, SSE resume and the LISTEN/NOTIFY catch-up on other daemons.
 * Writing them last (after every row lock the transaction takes) means the
 * advisory lock is never held while waiting for a row: no deadlock cycle.
 */
import type { CoordEvent, EventType } from '../../core/model.js';
import type { Queryable } from './database.js';
import { type EventRow, toEvent } from './rows.js';
import { rows } from './sql.js';

export interface Tx {
  db: Queryable;
  now: number;
  pending: NewEvent[];
  /** Due leases and ttls moved at the start of this transaction. */
  moved: number;
}

export interface NewEvent {
  type: EventType;
  board: string;
  task_id?: string | null;
  lock_id?: string | null;
  agent?: string | null;
  data?: Record<string, unknown>;
}

/** Records an event of this transaction; it is written just before COMMIT (flushEvents). */
export function appendEvent(tx: Tx, e: NewEvent): void {
  tx.pending.push(e);
}

export const NOTIFY_CHANNEL = 'coord_events';

/** Held from the first event insert to COMMIT: seq order is commit order (see the top of this file). */
export const SERIALISE_EVENTS = "pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()))";
/** Tells every listening daemon that events up to `seq` (an SQL expression) are committed. */
export const notifyUpTo = (seq: string): string => `pg_notify('${NOTIFY_CHANNEL}', current_schema() || ':' || ${seq})`;

const APPEND = `WITH serial AS (SELECT ${SERIALISE_EVENTS}),
  appended AS (
    INSERT INTO events (board, type, task_id, lock_id, agent, at, data)
    SELECT e.board, e.type, e.task_id, e.lock_id, e.agent, @at, e.data
    FROM serial, unnest(@boards::text[], @types::text[], @task_ids::text[], @lock_ids::text[], @agents::text[],
                        @datas::text[]) WITH ORDINALITY AS e(board, type, task_id, lock_id, agent, data, n)
    ORDER BY e.n
    RETURNING *),
  notified AS (SELECT ${notifyUpTo('max(seq)')} FROM appended)
SELECT appended.* FROM appended, notified ORDER BY seq`;

/** Writes the buffered events and notifies every daemon listening on this database (delivered at COMMIT). */
export async function flushEvents(tx: Tx): Promise<CoordEvent[]> {
  if (tx.pending.length === 0) return [];
  const es = tx.pending;
  tx.pending = [];
  const written = await rows<EventRow>(tx.db, APPEND, {
    at: tx.now,
    boards: es.map((e) => e.board),
    types: es.map((e) => e.type),
    task_ids: es.map((e) => e.task_id ?? null),
    lock_ids: es.map((e) => e.lock_id ?? null),
    agents: es.map((e) => e.agent ?? null),
    datas: es.map((e) => JSON.stringify(e.data ?? {})),
  });
  return written.map(toEvent);
}
