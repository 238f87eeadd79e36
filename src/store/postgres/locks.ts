/**
 * File locks and change holds (SPEC rule 11, §14) in PostgreSQL: the statements of store/shared/locks-sql.ts
 * with PostgreSQL's own (lists are arrays; a lock's keys come in its row; the board's advisory lock), and
 * `free`, the one way a lock ends, by predicate in one statement. Under READ COMMITTED two daemons could
 * each check "no overlap" and both insert (`src/` and `src/a.ts` share no unique key), so the check and the
 * insert run under a per-board advisory lock held until COMMIT: acquisitions on one board are serialised,
 * everything else runs freely.
 */
import type { Lock } from '../../core/model.js';
import { type LockRow, releasedEvent } from '../shared/lock-rows.js';
import { conflictsOver, type FreeOpts, type LocksSql, type LockTarget, locksCommon } from '../shared/locks-sql.js';
import * as locks from '../shared/locks-store.js';
import type { Queryable } from './database.js';
import { DB_NOW } from './due.js';
import { inTx, runAsync } from './runner.js';
import { rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const RESOURCES = (alias: string) =>
  `ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = ${alias}.lock_id ORDER BY r.resource)`;
/** A work tree's lock that ended (or lapsed) and waits for git; `@now` null: the database's clock. */
const ENDED = `l.worktree IS NOT NULL AND l.held_since IS NULL AND l.claim_id IS NULL
  AND l.lease_until <= COALESCE(@now::bigint, ${DB_NOW})`;

/** The locks each target names, by predicate. An ended work-tree lock waits for git (settleEnded), not for the sweep. */
const WHERE: Record<LockTarget['by'], string> = {
  lock: 'lock_id = @lock_id',
  hold: 'lock_id = @lock_id AND held_since IS NOT NULL',
  claim: 'claim_id = @claim_id',
  ids: 'lock_id = ANY(@ids::text[])',
  lapsed: 'claim_id IS NULL AND lease_until <= @now::bigint AND ended_for IS NULL',
};

// The cascade removes the keys; the CTE's statement still sees them to name them in the event.
const FREE = (where: string) => `WITH gone AS (DELETE FROM locks WHERE ${where} RETURNING *)
  SELECT l.*, ${RESOURCES('l')} AS resources FROM gone AS l ORDER BY l.lock_id`;

/** A work tree's lock ends without being deleted: it waits for git (settleEnded), still guarding other trees. */
const END = (
  where: string,
) => `UPDATE locks SET lease_until = LEAST(lease_until, @now::bigint), ended_for = @reason::text,
    hold_task = COALESCE(@task::text, task_id, hold_task), task_id = NULL, claim_id = NULL, session_id = NULL
  WHERE (${where}) AND worktree IS NOT NULL AND held_since IS NULL AND ended_for IS NULL
  RETURNING lock_id`;

/**
 * Ends the locks `target` names and records why. A lock taken from a work tree is not deleted unless `final`:
 * it ends and waits for coord to ask git which of its keys are pending there (`settleEnded`) — those become
 * a change hold (SPEC §14), the rest end for `reason`; an existing hold is left alone unless `final`;
 * anything else is deleted.
 */
async function free(tx: Tx, target: LockTarget, reason: string, opts: FreeOpts): Promise<string[]> {
  let where = WHERE[target.by];
  const params = { ...target, now: tx.now };
  const done: string[] = [];
  if (!opts.final) {
    const ended = await rows<{ lock_id: string }>(tx.db, END(where), { ...params, reason, task: opts.task ?? null });
    done.push(...ended.map((l) => l.lock_id));
    tx.endedLocks = (tx.endedLocks ?? 0) + ended.length;
    where = `(${where}) AND worktree IS NULL`;
  }
  const gone = await rows<LockRow & { resources: string[] }>(tx.db, FREE(where), params);
  for (const l of gone) appendEvent(tx, releasedEvent(l, l.resources, reason));
  return [...done, ...gone.map((l) => l.lock_id)];
}

const KEEP = 'NOT (resource = ANY (@keep::text[]))';

export const LOCKS_SQL: LocksSql = {
  ...locksCommon(RESOURCES, ENDED),
  conflicts: conflictsOver(
    'resource = ANY (@exact::text[])',
    'resource >= @lo::text COLLATE "C" AND resource < @hi::text COLLATE "C"',
  ),
  lockBoard: "SELECT pg_advisory_xact_lock(hashtext('coord.locks'), hashtext(@board))",
  // One round trip: the row and its keys, in sorted order (rule 11).
  insertLock: `WITH lock AS (
       INSERT INTO locks (lock_id, board, agent, lease_until, lease_ms, task_id, claim_id, session_id, created_at, worktree)
       VALUES (@lock_id, @board, @agent, @lease_until::bigint, @lease_ms, @task_id, @claim_id, @session_id, @now::bigint,
               @worktree::text)
       RETURNING lock_id, board)
     INSERT INTO lock_resources (board, resource, lock_id)
     SELECT lock.board, r.resource, lock.lock_id FROM lock, unnest(@resources::text[]) WITH ORDINALITY AS r(resource, n)
     ORDER BY r.n`,
  addResource: '',
  renewAll: `UPDATE locks SET lease_until = GREATEST(lease_until, @now::bigint + @lease_ms::bigint)
     WHERE lock_id = ANY (@ids::text[]) AND claim_id IS NULL AND lease_until > @now::bigint`,
  dropKeys: `DELETE FROM lock_resources WHERE lock_id = @lock_id AND ${KEEP}`,
  trimKeys: `DELETE FROM lock_resources r USING locks l
     WHERE r.lock_id = @lock_id AND l.lock_id = r.lock_id AND l.held_since IS NOT NULL
       AND NOT (r.resource = ANY (@keep::text[])) RETURNING r.resource`,
  free,
};

export const freeLapsedLocks = (tx: Tx): Promise<number> => inTx(tx, LOCKS_SQL, locks.freeLapsedLocks);

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export const claimLock = (db: Queryable, now: number, claimId: string): Promise<Lock | undefined> =>
  runAsync(locks.claimLock(LOCKS_SQL, now, claimId), db);
