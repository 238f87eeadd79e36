/**
 * What one write transaction sees: its connection, its instant, and the
 * events it appends. Events are buffered and written last, in one statement,
 * under a transaction-scoped advisory lock held until COMMIT: seq order is
 * then commit order, so "everything after seq N" is a complete answer for
 * cursors, SSE resume and the LISTEN/NOTIFY catch-up on other daemons.
 * Writing them last (after every row lock the transaction takes) means the
 * advisory lock is never held while waiting for a row: no deadlock cycle.
 */
import pg from 'pg';
import type { CoordEvent } from '../../core/model.js';
import type { NewEvent } from '../shared/new-event.js';
import { type EventRow, toEvent } from '../shared/rows.js';
import type { TxOf } from '../shared/tx.js';
import type { Queryable } from './database.js';

/** Its connection, its instant, the events it appends (written with the COMMIT) and what it moved (shared/tx.ts). */
export type Tx = TxOf<Queryable, NewEvent>;

/** Records an event of this transaction; it is written with the COMMIT (commit()). */
export function appendEvent(tx: Tx, e: NewEvent): void {
  tx.events.push(e);
}

export const NOTIFY_CHANNEL = 'coord_events';

/** Held from the first event insert to COMMIT: seq order is commit order (see the top of this file). */
export const SERIALISE_EVENTS = "pg_advisory_xact_lock(hashtext('coord.events'), hashtext(current_schema()))";
/**
 * A `notified` CTE telling every listening daemon about the rows of the `appended`
 * CTE (delivered at COMMIT): `{"schema", "seq": last seq, "events": [...]}`. The
 * events ride along so a listener usually needs no read; past NOTIFY's 8000-byte
 * limit they are left out and listeners read them (event-feed.ts).
 */
export const NOTIFY_APPENDED = `notified AS (
    SELECT pg_notify('${NOTIFY_CHANNEL}', CASE WHEN octet_length(p.full) < 7900 THEN p.full ELSE p.short END)
    FROM (SELECT json_build_object('schema', current_schema(), 'seq', max(a.seq), 'events', json_agg(a ORDER BY a.seq))::text AS full,
                 json_build_object('schema', current_schema(), 'seq', max(a.seq))::text AS short
          FROM appended AS a) AS p)`;

const literal = (v: string | null | undefined): string => (v == null ? 'NULL' : pg.escapeLiteral(v));

/**
 * The buffered events, the NOTIFY and COMMIT in one message (simple protocol,
 * values as escaped literals): the events lock is held for one round trip only.
 */
function appendAndCommitSql(tx: Tx, es: NewEvent[]): string {
  const values = es.map(
    (e, n) =>
      `(${[e.board, e.type, e.task_id, e.lock_id, e.agent, JSON.stringify(e.data ?? {})].map(literal).join(', ')}, ${n})`,
  );
  return `WITH serial AS (SELECT ${SERIALISE_EVENTS}),
  appended AS (
    INSERT INTO events (board, type, task_id, lock_id, agent, at, data)
    SELECT e.board, e.type, e.task_id, e.lock_id, e.agent, ${tx.now}::bigint, e.data
    FROM serial, (VALUES ${values.join(', ')}) AS e(board, type, task_id, lock_id, agent, data, n)
    ORDER BY e.n
    RETURNING *),
  ${NOTIFY_APPENDED}
SELECT appended.* FROM appended, notified ORDER BY seq; COMMIT`;
}

/**
 * Writes the buffered events, notifies every daemon listening on this database
 * (PostgreSQL delivers it at COMMIT) and commits. Returns the events written.
 */
export async function commit(tx: Tx): Promise<CoordEvent[]> {
  const es = tx.events;
  tx.events = [];
  if (es.length === 0) {
    await tx.db.query({ text: 'COMMIT' });
    return [];
  }
  if (!Number.isSafeInteger(tx.now)) throw new Error(`bad clock value ${tx.now}`);
  const results = (await tx.db.query({ text: appendAndCommitSql(tx, es) })) as unknown as pg.QueryResult<EventRow>[];
  return (results[0]?.rows ?? []).map(toEvent);
}
