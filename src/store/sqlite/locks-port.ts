/** File locks and the edit decision (SPEC rule 11, §14) of the SQLite store: store/shared/locks-port.ts. */
import { locksPort as port } from '../shared/locks-port.js';
import type { LocksPort } from '../shared/store-ports.js';
import { LOCKS_SQL } from './locks.js';
import { runner } from './runner.js';
import type { SqliteCore } from './store-core.js';

export const locksPort = (s: SqliteCore): LocksPort => port(runner(s, LOCKS_SQL));
