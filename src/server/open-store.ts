import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Store } from '../core/ports.js';
import type { Clock } from '../core/shared/clock.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';

const POSTGRES_URL = /^postgres(ql)?:\/\//;

/** The one place that picks a backend from configuration. */
export async function openStore(
  spec: string,
  stateDir: string,
  clock: Clock,
  log: Pick<Logger, 'error'>,
  durability: 'full' | 'normal' = 'full',
): Promise<Store> {
  if (spec === 'sqlite') {
    return new SqliteStore({
      path: join(stateDir, 'coord.db'),
      clock,
      durability,
      // The answer says what to do; the log keeps SQLite's own error for whoever has to look deeper.
      onFault: (err, answer) => log.error({ err, answer: answer.message }, 'store unavailable'),
    });
  }
  // Several daemons share one database: time comes from its clock, not from this machine's.
  // Loaded only for a postgres:// store: an embedded daemon does not hold the pg driver in memory.
  if (POSTGRES_URL.test(spec)) {
    const { PostgresStore } = await import('../store/postgres/postgres-store.js');
    return PostgresStore.open({ url: spec });
  }
  throw new Error(`unknown store "${spec}": use sqlite or a postgres:// URL`);
}
