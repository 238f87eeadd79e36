/** The edges' programs (store/shared/deps.ts) as the PostgreSQL store's unconverted code calls them. */
import type { Blocker } from '../../core/model.js';
import type { CreateTaskCommand } from '../../core/ports.js';
import * as deps from '../shared/deps.js';
import type { LinkRow, Links } from '../shared/deps-rows.js';
import type { TaskRow } from '../shared/rows.js';
import type { Queryable } from './database.js';
import { DEPS_SQL } from './deps-sql.js';
import { inTx, runAsync } from './runner.js';
import type { Tx } from './tx.js';

export const blockerCompleted = (tx: Tx, r: TaskRow, commits: boolean): Promise<void> =>
  inTx(tx, DEPS_SQL, (q) => deps.blockerCompleted(q, r, commits));

export const openBlockers = (db: Queryable, r: TaskRow): Promise<Blocker[]> =>
  runAsync(deps.openBlockers(DEPS_SQL, r), db);

/** Locked in a write: ordering it against their landing. */
export const linkRows = (db: Queryable, ids: readonly string[], lock: boolean): Promise<Map<string, LinkRow>> =>
  runAsync(deps.linkRows(DEPS_SQL, ids, lock), db);

export const insertTask = (
  tx: Tx,
  cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>,
  links: Links,
): Promise<TaskRow> => inTx(tx, DEPS_SQL, (q) => deps.insertTask(q, cmd, links));
