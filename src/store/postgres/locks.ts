/**
 * File locks (SPEC rule 11): try-locks, all-or-nothing, in one transaction.
 * Under READ COMMITTED two daemons could each check "no overlap" and both
 * insert (`src/` and `src/a.ts` share no unique key), so the check and the
 * insert run under a per-board advisory lock held until COMMIT: acquisitions
 * on one board are serialised, everything else runs freely. Liveness is a
 * predicate (lease, or the claim a lock is bound to), never a background job.
 */

import type { Overlap } from '../../core/edits/edit-decision.js';
import { overlapProbe } from '../../core/edits/paths.js';
import type { Lock } from '../../core/model.js';
import type { AcquireLocksCommand, LockConflict, Outcome } from '../../core/ports.js';
import { heldTask, type SessionClaim } from '../shared/held-task.js';
import { type ConflictRow, conflictsOf, overlapsOf } from '../shared/lock-conflicts.js';
import { type LockBound, type LockRow, lockOf, lockValues, releasedEvent, renewed } from '../shared/lock-rows.js';
import { acquiredLock } from '../shared/new-event.js';
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

type LockRowWith = LockRow & { resources: string[] };

/** A plain lock lives by its lease; a claim's lock lives exactly as long as the claim. */
const LOCK_LIVE = `((l.claim_id IS NULL AND l.lease_until > @now::bigint)
  OR (l.claim_id IS NOT NULL AND t.state = 'claimed' AND t.claim_id = l.claim_id AND t.lease_until > @now::bigint))`;
/** A change hold (SPEC §14) lives until its paths are no longer pending: only a git check ends it. */
const LIVE = `(l.held_since IS NOT NULL OR ${LOCK_LIVE})`;
const LEASE =
  'CASE WHEN l.held_since IS NOT NULL THEN l.held_since WHEN l.claim_id IS NULL THEN l.lease_until ELSE t.lease_until END';
/** As sqlite/locks.ts: live locks of anyone; holds (and unswept ended locks) of other work trees. */
const CONFLICTING = `((l.held_since IS NULL AND ${LOCK_LIVE})
  OR (l.worktree IS NOT NULL AND (@worktree::text IS NULL OR l.worktree <> @worktree::text)))`;
export const RESOURCES =
  'ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = l.lock_id ORDER BY r.resource)';

// Equality probes for every place enclosing the key, a range for everything inside it
// (core/edits/paths.ts overlapProbe). Both are primary-key lookups, never a scan of the table.
const CONFLICTS = `WITH hits AS (
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource = ANY (@exact::text[])
    UNION
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource >= @lo::text COLLATE "C" AND resource < @hi::text COLLATE "C")
  SELECT hits.resource AS held, l.lock_id, l.agent AS holder, ${LEASE} AS lease_until,
         l.worktree, l.held_since, COALESCE(l.task_id, l.hold_task) AS task_id,
         (l.claim_id IS NULL AND l.held_since IS NULL) AS plain
  FROM hits JOIN locks l ON l.lock_id = hits.lock_id LEFT JOIN tasks t ON t.id = l.task_id
  WHERE ${CONFLICTING} ORDER BY hits.resource, l.lock_id`;

/** Every live lock overlapping any of `keys`: each requested key with each held key it meets. */
export async function findOverlaps(
  db: Queryable,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): Promise<Overlap[]> {
  const out: Overlap[] = [];
  for (const resource of keys) {
    const hits = await rows<ConflictRow>(db, CONFLICTS, { board, now, worktree, ...overlapProbe(resource) });
    out.push(...overlapsOf(resource, hits, now));
  }
  return out;
}

/** The overlaps as a lock_conflict lists them (a work tree's lock or hold says which, SPEC §14). */
const findConflicts = async (
  db: Queryable,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): Promise<LockConflict[]> => conflictsOf(await findOverlaps(db, now, board, keys, worktree));

/** Serialises lock decisions on one board until COMMIT (see the top of this file). */
export const lockBoard = (tx: Tx, board: string): Promise<unknown> =>
  rows(tx.db, "SELECT pg_advisory_xact_lock(hashtext('coord.locks'), hashtext(@board))", { board });

// The cascade removes the keys; the CTE's statement still sees them to name them in the event.
const FREE = (where: string) => `WITH gone AS (DELETE FROM locks WHERE ${where} RETURNING *)
  SELECT l.*, ${RESOURCES} AS resources FROM gone AS l ORDER BY l.lock_id`;

/** A work tree's lock ends without being deleted: it waits for git (settleEnded), still guarding other trees. */
const END = (
  where: string,
) => `UPDATE locks SET lease_until = LEAST(lease_until, @now::bigint), ended_for = @reason::text,
    hold_task = COALESCE(@task::text, task_id, hold_task), task_id = NULL, claim_id = NULL, session_id = NULL
  WHERE (${where}) AND worktree IS NOT NULL AND held_since IS NULL AND ended_for IS NULL
  RETURNING lock_id`;

/**
 * Ends the locks `where` matches and records why. A lock taken from a work tree is not deleted unless `final`:
 * it ends and waits for coord to ask git which of its keys are pending there (`settleEnded`) — those become
 * a change hold (SPEC §14), the rest end for `reason`; an existing hold is left alone unless `final`;
 * anything else is deleted.
 */
export async function free(
  tx: Tx,
  where: string,
  params: object,
  reason: string,
  opts: { final?: boolean; task?: string | null } = {},
): Promise<string[]> {
  const done: string[] = [];
  if (!opts.final) {
    const ended = await rows<{ lock_id: string }>(tx.db, END(where), {
      ...params,
      now: tx.now,
      reason,
      task: opts.task ?? null,
    });
    done.push(...ended.map((l) => l.lock_id));
    tx.endedLocks = (tx.endedLocks ?? 0) + ended.length;
    where = `(${where}) AND worktree IS NULL`;
  }
  const gone = await rows<LockRowWith>(tx.db, FREE(where), params);
  for (const l of gone) appendEvent(tx, releasedEvent(l, l.resources, reason));
  return [...done, ...gone.map((l) => l.lock_id)];
}

// An ended work-tree lock waits for git (settleEnded), not for the sweep.
const LAPSED = 'claim_id IS NULL AND lease_until <= @now::bigint AND ended_for IS NULL';

/** Lazy cleanup: lapsed plain locks already stopped conflicting; here they leave the table. */
export const freeLapsedLocks = async (tx: Tx): Promise<number> =>
  (await free(tx, LAPSED, { now: tx.now }, 'lease_lapsed')).length;

/** Inserts a lock after a conflict check under the board's advisory lock: every key or none. */
export async function insertLock(tx: Tx, cmd: AcquireLocksCommand, bound: LockBound): Promise<Outcome<{ lock: Lock }>> {
  await lockBoard(tx, cmd.board);
  // Lapsed locks no longer conflict; free them first so the event log never shows an acquisition over a lock
  // it has not released yet (a claim with files comes here directly, not through acquireLocks).
  await freeLapsedLocks(tx);
  const conflicts = await findConflicts(tx.db, tx.now, cmd.board, cmd.resources, cmd.worktree);
  if (conflicts.length > 0) return { ok: false, reason: 'lock_conflict', conflicts };
  return { ok: true, lock: await writeLock(tx, cmd, bound) };
}

/** Inserts a lock whose keys the caller has just checked under the board's advisory lock, with its event. */
export async function writeLock(tx: Tx, cmd: AcquireLocksCommand, bound: LockBound): Promise<Lock> {
  const values = lockValues(cmd, bound, tx.now);
  await rows(
    tx.db,
    `WITH lock AS (
       INSERT INTO locks (lock_id, board, agent, lease_until, lease_ms, task_id, claim_id, session_id, created_at, worktree)
       VALUES (@lock_id, @board, @agent, @lease_until::bigint, @lease_ms, @task_id, @claim_id, @session_id, @now::bigint,
               @worktree::text)
       RETURNING lock_id, board)
     INSERT INTO lock_resources (board, resource, lock_id)
     SELECT lock.board, r.resource, lock.lock_id FROM lock, unnest(@resources::text[]) WITH ORDINALITY AS r(resource, n)
     ORDER BY r.n`,
    values,
  );
  const { lock, event } = acquiredLock(cmd, values.lease_until, values.task_id, tx.now);
  appendEvent(tx, event);
  return lock;
}

export const acquireLocks = (tx: Tx, cmd: AcquireLocksCommand): Promise<Outcome<{ lock: Lock }>> =>
  insertLock(tx, cmd, null);

export async function renewLock(
  tx: Tx,
  lockId: string,
  leaseMs: number | null,
): Promise<Outcome<{ lease_until: string }>> {
  const r = await row<{ lease_until: number }>(
    tx.db,
    `UPDATE locks SET lease_until = @now::bigint + COALESCE(@lease_ms::bigint, lease_ms)
     WHERE lock_id = @lock_id AND claim_id IS NULL AND held_since IS NULL AND lease_until > @now::bigint
     RETURNING lease_until`,
    { lock_id: lockId, lease_ms: leaseMs, now: tx.now },
  );
  return renewed(r?.lease_until, r ? undefined : (await liveLocks(tx.db, tx.now, { lock_id: lockId }))[0]);
}

export const releaseLock = async (tx: Tx, lockId: string): Promise<boolean> =>
  (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, 'released')).length > 0;

/** Runs inside the transaction that ends a claim (PostgresStore.claimEnded): its files go with it. */
export async function freeClaimLocks(tx: Tx, claimId: string | null): Promise<void> {
  if (claimId !== null) await free(tx, 'claim_id = @claim_id', { claim_id: claimId }, 'claim_ended');
}

/** `claims`: the session's claims as they were, so a plain lock's hold names the task its agent held. */
export async function freeSessionLocks(tx: Tx, sessionId: string, claims: SessionClaim[] = []): Promise<string[]> {
  const mine = await rows<{ lock_id: string; agent: string; worktree: string | null }>(
    tx.db,
    'SELECT lock_id, agent, worktree FROM locks WHERE session_id = @session_id ORDER BY lock_id',
    { session_id: sessionId },
  );
  const byTask = new Map<string | null, string[]>();
  for (const l of mine) {
    const task = heldTask(l, claims);
    byTask.set(task, [...(byTask.get(task) ?? []), l.lock_id]);
  }
  const freed: string[] = [];
  for (const [task, ids] of byTask) {
    freed.push(...(await free(tx, 'lock_id = ANY(@ids::text[])', { ids }, 'session_ended', { task })));
  }
  return freed;
}

/** Live locks, oldest first; a read that never writes. */
export async function liveLocks(
  db: Queryable,
  now: number,
  q: { board?: string | undefined; lock_id?: string },
): Promise<Lock[]> {
  // One statement per filter, so each is an index lookup rather than an `@x IS NULL OR` scan.
  const [where, key] =
    q.lock_id !== undefined
      ? ['l.lock_id = @key', q.lock_id]
      : q.board !== undefined
        ? ['l.board = @key', q.board]
        : ['@key::text IS NULL', null];
  const found = await rows<LockRowWith>(
    db,
    `SELECT l.lock_id, l.board, l.agent, COALESCE(l.task_id, l.hold_task) AS task_id, l.created_at,
            ${LEASE} AS lease_until, ${RESOURCES} AS resources, l.worktree, l.held_since
     FROM locks l LEFT JOIN tasks t ON t.id = l.task_id
     WHERE ${where} AND ${LIVE} ORDER BY l.created_at, l.lock_id`,
    { key, now },
  );
  return found.map((r) => lockOf(r, r.resources));
}

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export async function claimLock(db: Queryable, now: number, claimId: string): Promise<Lock | undefined> {
  const r = await row<{ lock_id: string }>(db, 'SELECT lock_id FROM locks WHERE claim_id = @claim_id', {
    claim_id: claimId,
  });
  return r ? (await liveLocks(db, now, { lock_id: r.lock_id }))[0] : undefined;
}
