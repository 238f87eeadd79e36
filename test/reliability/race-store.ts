/** Which database a racer opens: each thread opens its own store (its own connection) on the same data. */

import type { Store } from '../../src/core/ports.js';
import type { Clock } from '../../src/core/shared/clock.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

export type StoreSpec = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };

export const openStore = async (spec: StoreSpec, clock: Clock): Promise<Store> =>
  spec.kind === 'sqlite'
    ? new SqliteStore({ path: spec.path, clock })
    : PostgresStore.open({ url: spec.url, schema: spec.schema, clock, max: 2 });
