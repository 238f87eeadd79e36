import type { ClaimGrant } from '../../core/model.js';
import type { ClaimCommand, ClaimNextCommand } from '../../core/ports.js';
import { CLAIM_BY_ID as CLAIM_BY_ID_TEXT, claimParams, claimWon, SET_CLAIMED } from '../shared/claim.js';
import type { TaskRow } from '../shared/rows.js';
import type { Db } from './database.js';
import { inSqlite, inTx } from './runner.js';
import { stmt, type Tx } from './tx.js';

const CLAIM_BY_ID = inSqlite(CLAIM_BY_ID_TEXT);

// The kind and label filters are added only when asked for: their json_each lists
// cost SQLite more than the rest of the lookup, even when the parameter is NULL.
const KINDS = ' AND kind IN (SELECT value FROM json_each(@kinds))';
const LABELS = ` AND EXISTS (SELECT 1 FROM json_each(tasks.labels) AS l
                             WHERE l.value IN (SELECT value FROM json_each(@labels)))`;
const nextFilter = (kinds: boolean, labels: boolean) =>
  `board = @board AND state = 'queued' AND blockers_open = 0 AND expires_at > @now
  AND (for_agent IS NULL OR for_agent = @agent)${kinds ? KINDS : ''}${labels ? LABELS : ''}`;
const NEXT_ORDER = 'ORDER BY priority, created_at, id LIMIT 1';

const peekSql = (kinds: boolean, labels: boolean) =>
  `SELECT id FROM tasks WHERE ${nextFilter(kinds, labels)} ${NEXT_ORDER}`;
const claimNextSql = (kinds: boolean, labels: boolean) => `UPDATE tasks ${inSqlite(SET_CLAIMED)}
  WHERE state = 'queued' AND blockers_open = 0 AND id = (SELECT id FROM tasks WHERE ${nextFilter(kinds, labels)} ${NEXT_ORDER})
  RETURNING *`;
/** The four variants, built once: [kinds?][labels?]. */
const PEEK = [0, 1].map((k) => [0, 1].map((l) => peekSql(k === 1, l === 1)));
const CLAIM_NEXT = [0, 1].map((k) => [0, 1].map((l) => claimNextSql(k === 1, l === 1)));
const variant = (sqls: string[][], cmd: ClaimNextCommand): string =>
  sqls[cmd.kinds.length ? 1 : 0]![cmd.labels.length ? 1 : 0]!;

/** The peek of a claim-next without kind or label filters (the common case). */
export const PEEK_NEXT = peekSql(false, false);

const params = (tx: Tx, cmd: ClaimCommand | ClaimNextCommand) => claimParams(tx.now, cmd);

const nextParams = (cmd: ClaimNextCommand) => ({
  board: cmd.board,
  kinds: cmd.kinds.length ? JSON.stringify(cmd.kinds) : null,
  labels: cmd.labels.length ? JSON.stringify(cmd.labels) : null,
});

/**
 * Read-only: the task this agent would claim next, if any. Lets an empty claim-next skip the write lock, and a
 * full one claim by id (the primary key) instead of looking again.
 */
export const peekNext = (db: Db, now: number, cmd: ClaimNextCommand): string | null =>
  (stmt(db, variant(PEEK, cmd)).get({ ...nextParams(cmd), agent: cmd.agent, now }) as { id: string } | undefined)?.id ??
  null;

/**
 * Claims the next task, or the `peeked` one: still one conditional write, with the predicate that can have
 * changed since the peek (state, readiness, ttl, visibility; board, kind and labels never change). Null when
 * nothing is left, or when the peeked task was taken meanwhile (the caller looks again). A peek taken before
 * the batch moved due rows is not used: a requeued claim may now be first in line.
 */
export function claimNext(tx: Tx, cmd: ClaimNextCommand, peeked?: string): ClaimGrant | null {
  // The batch requeued lapsed claims before this write: one of them may now come before the peeked task.
  const byId = peeked !== undefined && !tx.moved;
  const row = (
    byId
      ? stmt(tx.db, CLAIM_BY_ID).get({ ...params(tx, cmd), task_id: peeked })
      : stmt(tx.db, variant(CLAIM_NEXT, cmd)).get({ ...params(tx, cmd), ...nextParams(cmd) })
  ) as TaskRow | undefined;
  return row ? inTx(tx, null, () => claimWon(row)) : null;
}
