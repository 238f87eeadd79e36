/**
 * File locks (SPEC rule 11): try-locks, all-or-nothing, in one transaction.
 * Under READ COMMITTED two daemons could each check "no overlap" and both
 * insert (`src/` and `src/a.ts` share no unique key), so the check and the
 * insert run under a per-board advisory lock held until COMMIT: acquisitions
 * on one board are serialised, everything else runs freely. Liveness is a
 * predicate (lease, or the claim a lock is bound to), never a background job.
 */
import type { Lock } from '../../core/model.js';
import { overlapProbe, overlaps } from '../../core/paths.js';
import type { AcquireLocksCommand, LockConflict, Outcome } from '../../core/ports.js';
import { type ConflictRow, conflictOf } from '../shared/lock-conflicts.js';
import { acquiredLock } from '../shared/new-event.js';
import { lockHeld, lockReleased } from '../shared/task-events.js';
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

interface LockRow {
  lock_id: string;
  board: string;
  agent: string;
  lease_until: number;
  task_id: string | null;
  created_at: number;
  resources: string[];
  worktree: string | null;
  held_since: number | null;
  hold_task: string | null;
}

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
/** Far in the future: a hold's lease never lapses. */
const HOLD_LEASE = 8_640_000_000_000_000;
const RESOURCES = 'ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = l.lock_id ORDER BY r.resource)';

// Equality probes for every place enclosing the key, a range for everything inside it
// (core/paths.ts overlapProbe). Both are primary-key lookups, never a scan of the table.
const CONFLICTS = `WITH hits AS (
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource = ANY (@exact::text[])
    UNION
    SELECT resource, lock_id FROM lock_resources
    WHERE board = @board AND resource >= @lo::text COLLATE "C" AND resource < @hi::text COLLATE "C")
  SELECT hits.resource AS held, l.lock_id, l.agent AS holder, ${LEASE} AS lease_until,
         l.worktree, l.held_since, COALESCE(l.task_id, l.hold_task) AS task_id
  FROM hits JOIN locks l ON l.lock_id = hits.lock_id LEFT JOIN tasks t ON t.id = l.task_id
  WHERE ${CONFLICTING} ORDER BY hits.resource, l.lock_id`;

const iso = (ms: number): string => new Date(ms).toISOString();

/** Every live lock overlapping any of `keys`: each requested key with each held key it meets. */
export async function findConflicts(
  db: Queryable,
  now: number,
  board: string,
  keys: string[],
  worktree: string | null = null,
): Promise<LockConflict[]> {
  const out: LockConflict[] = [];
  for (const resource of keys) {
    const probe = overlapProbe(resource);
    const hits = await rows<ConflictRow>(db, CONFLICTS, { board, now, worktree, ...probe });
    for (const h of hits) out.push(conflictOf(resource, h, now));
  }
  return out;
}

// The cascade removes the keys; the CTE's statement still sees them to name them in the event.
const FREE = (where: string) => `WITH gone AS (DELETE FROM locks WHERE ${where} RETURNING *)
  SELECT l.*, ${RESOURCES} AS resources FROM gone AS l ORDER BY l.lock_id`;

const HOLD = (where: string) => `UPDATE locks SET held_since = @now::bigint, lease_until = ${HOLD_LEASE},
    hold_task = COALESCE(@task::text, task_id, hold_task), task_id = NULL, claim_id = NULL, session_id = NULL
  WHERE (${where}) AND worktree IS NOT NULL AND held_since IS NULL
  RETURNING *, ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = locks.lock_id ORDER BY r.resource)
    AS resources`;

/**
 * Ends the locks `where` matches and records why. A lock taken from a work tree becomes a change hold of it
 * (SPEC §14) unless `final`; an existing hold is left alone unless `final`; anything else is deleted.
 */
async function free(
  tx: Tx,
  where: string,
  params: object,
  reason: string,
  opts: { final?: boolean; task?: string | null } = {},
): Promise<string[]> {
  const done: string[] = [];
  if (!opts.final) {
    const held = await rows<LockRow>(tx.db, HOLD(where), { ...params, now: tx.now, task: opts.task ?? null });
    for (const l of held) {
      appendEvent(tx, lockHeld({ ...l, task_id: l.hold_task }, l.resources, reason));
      done.push(l.lock_id);
    }
    where = `(${where}) AND held_since IS NULL`;
  }
  const gone = await rows<LockRow & { claim_id: string | null }>(tx.db, FREE(where), params);
  for (const l of gone) {
    appendEvent(tx, lockReleased({ ...l, task_id: l.task_id ?? l.hold_task }, l.resources, reason));
  }
  return [...done, ...gone.map((l) => l.lock_id)];
}

/** A person ends a lock or a hold at once (`coord unlock --force`). */
export const forceReleaseLock = async (tx: Tx, lockId: string): Promise<boolean> =>
  (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, 'forced', { final: true })).length > 0;

/** A hold keeps only the keys still pending in its work tree; with none left it ends for `reason`. */
export async function trimHold(tx: Tx, lockId: string, keep: string[], reason: string): Promise<boolean> {
  if (keep.length === 0) {
    return (
      (await free(tx, 'lock_id = @lock_id AND held_since IS NOT NULL', { lock_id: lockId }, reason, { final: true }))
        .length > 0
    );
  }
  const gone = await rows(
    tx.db,
    `DELETE FROM lock_resources r USING locks l
     WHERE r.lock_id = @lock_id AND l.lock_id = r.lock_id AND l.held_since IS NOT NULL
       AND NOT (r.resource = ANY (@keep::text[])) RETURNING r.resource`,
    { lock_id: lockId, keep },
  );
  return gone.length > 0;
}

/** SPEC §14, at a submit: the agent's plain locks from this work tree on the change's paths become the task's holds. */
export async function holdAtSubmit(
  tx: Tx,
  c: { board: string; agent: string; worktree: string; task_id: string; paths: string[] },
): Promise<void> {
  const mine = await rows<{ lock_id: string; resources: string[] }>(
    tx.db,
    `SELECT l.lock_id, ${RESOURCES} AS resources FROM locks l
     WHERE l.board = @board AND l.agent = @agent AND l.worktree = @worktree AND l.claim_id IS NULL
       AND l.held_since IS NULL ORDER BY l.lock_id`,
    c,
  );
  for (const m of mine) {
    if (m.resources.some((r) => c.paths.some((p) => overlaps(r, p)))) {
      await free(tx, 'lock_id = @lock_id', { lock_id: m.lock_id }, 'submitted', { task: c.task_id });
    }
  }
}

const LAPSED = 'claim_id IS NULL AND lease_until <= @now::bigint';

/** Lazy cleanup: lapsed plain locks already stopped conflicting; here they leave the table. */
export const freeLapsedLocks = async (tx: Tx): Promise<number> =>
  (await free(tx, LAPSED, { now: tx.now }, 'lease_lapsed')).length;

/** Inserts a lock after a conflict check under the board's advisory lock: every key or none. */
export async function insertLock(
  tx: Tx,
  cmd: AcquireLocksCommand,
  bound: { task_id: string; claim_id: string; lease_until: number } | null,
): Promise<Outcome<{ lock: Lock }>> {
  await rows(tx.db, "SELECT pg_advisory_xact_lock(hashtext('coord.locks'), hashtext(@board))", { board: cmd.board });
  // Lapsed locks no longer conflict; free them first so the event log never shows an acquisition over a lock
  // it has not released yet (a claim with files comes here directly, not through acquireLocks).
  await freeLapsedLocks(tx);
  const conflicts = await findConflicts(tx.db, tx.now, cmd.board, cmd.resources, cmd.worktree);
  if (conflicts.length > 0) return { ok: false, reason: 'lock_conflict', conflicts };
  const lease_until = bound?.lease_until ?? tx.now + cmd.lease_ms;
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
    {
      ...cmd,
      lease_until,
      task_id: bound?.task_id ?? null,
      claim_id: bound?.claim_id ?? null,
      now: tx.now,
    },
  );
  const { lock, event } = acquiredLock(cmd, lease_until, bound?.task_id ?? null, tx.now);
  appendEvent(tx, event);
  return { ok: true, lock };
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
  if (r) return { ok: true, lease_until: iso(r.lease_until) };
  // A claim's lock follows its claim: renewing it reports the claim's lease (heartbeat extends both).
  const bound = (await liveLocks(tx.db, tx.now, { lock_id: lockId }))[0];
  return bound ? { ok: true, lease_until: bound.lease_until } : { ok: false, reason: 'not_found' };
}

export const releaseLock = async (tx: Tx, lockId: string): Promise<boolean> =>
  (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, 'released')).length > 0;

/** Runs inside the transaction that ends a claim (PostgresStore.claimEnded): its files go with it. */
export async function freeClaimLocks(tx: Tx, claimId: string | null): Promise<void> {
  if (claimId !== null) await free(tx, 'claim_id = @claim_id', { claim_id: claimId }, 'claim_ended');
}

export const freeSessionLocks = (tx: Tx, sessionId: string): Promise<string[]> =>
  free(tx, 'session_id = @session_id', { session_id: sessionId }, 'session_ended');

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
  const found = await rows<LockRow>(
    db,
    `SELECT l.lock_id, l.board, l.agent, COALESCE(l.task_id, l.hold_task) AS task_id, l.created_at,
            ${LEASE} AS lease_until, ${RESOURCES} AS resources, l.worktree, l.held_since
     FROM locks l LEFT JOIN tasks t ON t.id = l.task_id
     WHERE ${where} AND ${LIVE} ORDER BY l.created_at, l.lock_id`,
    { key, now },
  );
  return found.map((r) => ({
    lock_id: r.lock_id,
    board: r.board,
    agent: r.agent,
    resources: r.resources,
    lease_until: iso(r.lease_until),
    task_id: r.task_id,
    created_at: iso(r.created_at),
    worktree: r.worktree,
    hold: r.held_since === null ? null : { since: iso(Number(r.held_since)) },
  }));
}

/** The live lock held by a claim, if it took one (a re-claim answers with it). */
export async function claimLock(db: Queryable, now: number, claimId: string): Promise<Lock | undefined> {
  const r = await row<{ lock_id: string }>(db, 'SELECT lock_id FROM locks WHERE claim_id = @claim_id', {
    claim_id: claimId,
  });
  return r ? (await liveLocks(db, now, { lock_id: r.lock_id }))[0] : undefined;
}
