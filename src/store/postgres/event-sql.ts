/**
 * The payloads PostgreSQL's one-round-trip statements write (one-trip.ts, and the functions of migrations
 * 0005/0006), as SQL over a tasks row. They are built inside the statement because they cannot be known
 * before it — the fence and the lease exist once the row is claimed, and an empty claim-next may take no
 * write lock, so its event cannot be a statement of its own. Each payload is a table of one SQL expression
 * per field of the catalogue's payload (core/events.ts), beside the TypeScript builder every other path uses
 * (store/shared/task-events.ts): a field renamed, added or removed in the catalogue fails to compile here.
 * test/postgres/one-trip-payloads.test.ts holds the functions' SQL to these expressions and the payloads
 * they store to the TypeScript builders.
 */
import type { EventData } from '../../core/events.js';
import type { EventType } from '../../core/model.js';

/** For each field of the payload of T, its SQL over the tasks row named `row`. */
type PayloadSql<T extends EventType> = { [K in keyof EventData<T>]-?: (row: string) => string };

/** An instant in ms as JavaScript's toISOString() writes it (integer interval arithmetic: exact to the ms). */
export const isoSql = (ms: string) =>
  `to_char(timestamp 'epoch' + ${ms} * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const CLAIMED: PayloadSql<'task.claimed'> = {
  fence: (t) => `${t}.attempts`,
  lease_until: (t) => isoSql(`${t}.lease_until`),
};

const FINISHED: PayloadSql<'task.completed'> & PayloadSql<'task.failed'> = {
  fence: (t) => `${t}.attempts`,
};

const objectSql = (fields: Record<string, (row: string) => string>, row: string): string =>
  `json_build_object(${Object.entries(fields)
    .map(([k, sql]) => `'${k}', ${sql(row)}`)
    .join(', ')})::text`;

/** `task.claimed`'s data as json text, over the claimed row `row`. */
export const claimedDataSql = (row: string): string => objectSql(CLAIMED, row);

/** `task.completed` / `task.failed`'s data as json text, over the submitted row `row`. */
export const finishedDataSql = (row: string): string => objectSql(FINISHED, row);
