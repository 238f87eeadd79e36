import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Store } from '../core/ports.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';

/** The one place that picks a backend from configuration. */
export async function openStore(spec: string, stateDir: string, clock: Clock): Promise<Store> {
  if (spec === 'sqlite') return new SqliteStore({ path: join(stateDir, 'coord.db'), clock });
  throw new Error(`unknown store "${spec}": use sqlite or a postgres:// URL`);
}
