/** A fresh PostgresStore per test, each in its own schema of the test file's database. */
import type { ManualClock } from '../../src/core/shared/clock.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { MakeStore } from '../support/ctx.js';

let counter = 0;

/** Stores on `url()` (the file's database, known once its server started), each in a new schema. */
export function makePostgresStore(url: () => string): MakeStore {
  return async (clock: ManualClock) =>
    PostgresStore.open({ url: url(), schema: `t${process.pid}_${++counter}`, clock, max: 4 });
}
