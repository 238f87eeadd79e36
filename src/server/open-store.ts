import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.js';
import type { Store } from '../core/ports.js';
import { PostgresStore } from '../store/postgres/postgres-store.js';
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
  if (POSTGRES_URL.test(spec)) return PostgresStore.open({ url: spec });
  throw new Error(`unknown store "${spec}": use sqlite or a postgres:// URL`);
}
