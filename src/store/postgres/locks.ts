/**
 * File locks (SPEC rule 11): try-locks, all-or-nothing, in one transaction.
 * Under READ COMMITTED two daemons could each check "no overlap" and both
 * insert (`src/` and `src/a.ts` share no unique key), so the check and the
 * insert run under a per-board advisory lock held until COMMIT: acquisitions
 * on one board are serialised, everything else runs freely. Liveness is a
 * predicate (lease, or the claim a lock is bound to), never a background job.
 */

import type { Overlap } from '../../core/edit-decision.js';
import type { Lock } from '../../core/model.js';
import { overlapProbe, overlaps } from '../../core/paths.js';
import type { AcquireLocksCommand, LockConflict, Outcome } from '../../core/ports.js';
import type { EndedLock } from '../../core/worktree-ports.js';
import { heldTask, type SessionClaim } from '../shared/held-task.js';
import { type ConflictRow, conflictOf } from '../shared/lock-conflicts.js';
import { acquiredLock } from '../shared/new-event.js';
import { lockHeld, lockReleased } from '../shared/task-events.js';
import type { Queryable } from './database.js';
import { DB_NOW } from './due.js';
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
         l.worktree, l.held_since, COALESCE(l.task_id, l.hold_task) AS task_id,
         (l.claim_id IS NULL AND l.held_since IS NULL) AS plain
  FROM hits JOIN locks l ON l.lock_id = hits.lock_id LEFT JOIN tasks t ON t.id = l.task_id
  WHERE ${CONFLICTING} ORDER BY hits.resource, l.lock_id`;

const iso = (ms: number): string => new Date(ms).toISOString();

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
    const probe = overlapProbe(resource);
    const hits = await rows<ConflictRow & { plain: boolean }>(db, CONFLICTS, { board, now, worktree, ...probe });
    for (const h of hits) {
      const c = conflictOf(resource, h, now);
      out.push({
        resource,
        held: h.held,
        lock_id: h.lock_id,
        holder: h.holder,
        lease_until: Number(h.lease_until),
        task_id: h.task_id,
        plain: h.plain,
        ...(c.worktree === undefined ? {} : { worktree: c.worktree, hold: c.hold ?? false }),
      });
    }
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
): Promise<LockConflict[]> =>
  (await findOverlaps(db, now, board, keys, worktree)).map((o) => ({
    resource: o.resource,
    held: o.held,
    lock_id: o.lock_id,
    holder: o.holder,
    lease_until: iso(o.lease_until),
    ...(o.worktree === undefined ? {} : { task_id: o.task_id, worktree: o.worktree, hold: o.hold ?? false }),
  }));

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
async function free(
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
  const gone = await rows<LockRow & { claim_id: string | null }>(tx.db, FREE(where), params);
  for (const l of gone) {
    appendEvent(tx, lockReleased({ ...l, task_id: l.task_id ?? l.hold_task }, l.resources, reason));
  }
  return [...done, ...gone.map((l) => l.lock_id)];
}

/** A work tree's lock that ended (or lapsed) and waits for git: not live, not a hold yet. */
const ENDED = `l.worktree IS NOT NULL AND l.held_since IS NULL AND l.claim_id IS NULL
  AND l.lease_until <= COALESCE(@now::bigint, ${DB_NOW})`;

/** The board's (or every board's) ended work-tree locks waiting for git to say what is pending. */
export const endedLocks = (db: Queryable, now: number | null, board: string | null): Promise<EndedLock[]> =>
  rows<EndedLock>(
    db,
    `SELECT l.lock_id, l.board, l.agent, l.hold_task AS task_id, l.worktree, ${RESOURCES} AS resources FROM locks l
     WHERE ${ENDED} AND (@board::text IS NULL OR l.board = @board::text) ORDER BY l.lock_id`,
    { now, board },
  );

/**
 * An ended work-tree lock becomes a change hold of the keys git says are pending (`keep`), or, with none,
 * ends for the reason it ended (SPEC §14: only pending paths are held).
 */
async function settleEnded(tx: Tx, lockId: string, keep: string[]): Promise<boolean> {
  const r = await row<{ ended_for: string | null }>(
    tx.db,
    `SELECT l.ended_for FROM locks l WHERE l.lock_id = @lock_id AND ${ENDED} FOR UPDATE`,
    { lock_id: lockId, now: tx.now },
  );
  if (!r) return false;
  const why = r.ended_for ?? 'lease_lapsed';
  if (keep.length === 0)
    return (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, why, { final: true })).length > 0;
  await rows(tx.db, 'DELETE FROM lock_resources WHERE lock_id = @lock_id AND NOT (resource = ANY (@keep::text[]))', {
    lock_id: lockId,
    keep,
  });
  const held = await row<LockRow>(
    tx.db,
    `UPDATE locks SET held_since = @now::bigint, lease_until = ${HOLD_LEASE}, ended_for = NULL WHERE lock_id = @lock_id
     RETURNING *, ARRAY(SELECT r.resource FROM lock_resources r WHERE r.lock_id = locks.lock_id ORDER BY r.resource)
       AS resources`,
    { lock_id: lockId, now: tx.now },
  );
  if (held) appendEvent(tx, lockHeld({ ...held, task_id: held.hold_task }, held.resources, why));
  return true;
}

/** A person ends a lock or a hold at once (`coord unlock --force`). */
export const forceReleaseLock = async (tx: Tx, lockId: string): Promise<boolean> =>
  (await free(tx, 'lock_id = @lock_id', { lock_id: lockId }, 'forced', { final: true })).length > 0;

/** A hold keeps only the keys still pending in its work tree; with none left it ends for `reason`. */
export async function trimHold(tx: Tx, lockId: string, keep: string[], reason: string): Promise<boolean> {
  const hold = await row(tx.db, 'SELECT 1 FROM locks WHERE lock_id = @lock_id AND held_since IS NOT NULL', {
    lock_id: lockId,
  });
  if (!hold) return settleEnded(tx, lockId, keep);
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

// An ended work-tree lock waits for git (settleEnded), not for the sweep.
const LAPSED = 'claim_id IS NULL AND lease_until <= @now::bigint AND ended_for IS NULL';

/** Lazy cleanup: lapsed plain locks already stopped conflicting; here they leave the table. */
export const freeLapsedLocks = async (tx: Tx): Promise<number> =>
  (await free(tx, LAPSED, { now: tx.now }, 'lease_lapsed')).length;

/** Inserts a lock after a conflict check under the board's advisory lock: every key or none. */
export async function insertLock(
  tx: Tx,
  cmd: AcquireLocksCommand,
  bound: { task_id: string; claim_id: string; lease_until: number } | null,
): Promise<Outcome<{ lock: Lock }>> {
  await lockBoard(tx, cmd.board);
  // Lapsed locks no longer conflict; free them first so the event log never shows an acquisition over a lock
  // it has not released yet (a claim with files comes here directly, not through acquireLocks).
  await freeLapsedLocks(tx);
  const conflicts = await findConflicts(tx.db, tx.now, cmd.board, cmd.resources, cmd.worktree);
  if (conflicts.length > 0) return { ok: false, reason: 'lock_conflict', conflicts };
  return { ok: true, lock: await writeLock(tx, cmd, bound) };
}

/** Inserts a lock whose keys the caller has just checked under the board's advisory lock, with its event. */
export async function writeLock(
  tx: Tx,
  cmd: AcquireLocksCommand,
  bound: { task_id: string; claim_id: string; lease_until: number } | null,
): Promise<Lock> {
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
