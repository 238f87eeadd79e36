/** The edges' programs (store/shared/deps.ts) as the SQLite store's unconverted code calls them, in its transaction. */
import * as deps from '../shared/deps.js';
import type { TaskRow } from '../shared/rows.js';
import { DEPS_SQL } from './deps-sql.js';
import { inTx } from './runner.js';
import type { Tx } from './tx.js';

export const blockerCompleted = (tx: Tx, r: TaskRow, commits: boolean): void =>
  inTx(tx, DEPS_SQL, (q) => deps.blockerCompleted(q, r, commits));
