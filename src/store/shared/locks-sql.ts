/**
 * The statements of file locks and change holds (SPEC rule 11, §14; locks-store.ts, holds-store.ts,
 * edits-store.ts), written once for both dialects: PostgreSQL's text, which SQLite's runner runs without its
 * casts and row locks. Each store adds its own (`<store>/locks.ts`): how it lists a lock's keys in a row, the
 * conflict check's probes, the statements over lists, and `free`, the one way a lock ends.
 */
import { HOLD_LEASE } from './lock-rows.js';
import type { InTx } from './program.js';

/** Which locks `free` ends: one lock, one hold (a hold still), a claim's, a list, or the lapsed plain locks. */
export type LockTarget =
  | { by: 'lock' | 'hold'; lock_id: string }
  | { by: 'claim'; claim_id: string }
  | { by: 'ids'; ids: string[] }
  | { by: 'lapsed' };

/** `final`: deleted even if a work tree's (no hold); `task`: the task a work tree's lock holds for. */
export interface FreeOpts {
  final?: boolean;
  task?: string | null;
}

/** A plain lock lives by its lease; a claim's lock lives exactly as long as the claim. */
const LOCK_LIVE = `((l.claim_id IS NULL AND l.lease_until > @now::bigint)
  OR (l.claim_id IS NOT NULL AND t.state = 'claimed' AND t.claim_id = l.claim_id AND t.lease_until > @now::bigint))`;
/** A change hold (SPEC §14) lives until its paths are no longer pending: only a git check ends it. */
const LIVE = `(l.held_since IS NOT NULL OR ${LOCK_LIVE})`;
const LEASE =
  'CASE WHEN l.held_since IS NOT NULL THEN l.held_since WHEN l.claim_id IS NULL THEN l.lease_until ELSE t.lease_until END';
/**
 * What conflicts with a caller working in @worktree (core/worktrees/holds.ts says the same in words): a live lock of
 * anyone, and — from another work tree only — a hold, or a lock from a work tree that ended without being
 * swept into a hold yet (so there is no instant at which neither guards the path).
 */
const CONFLICTING = `((l.held_since IS NULL AND ${LOCK_LIVE})
  OR (l.worktree IS NOT NULL AND (@worktree::text IS NULL OR l.worktree <> @worktree::text)))`;

/**
 * The conflict check: equality probes for every place enclosing the key (the store's `exact`, over @exact), a
 * range for everything inside it (the store's `range`, over @lo and @hi; core/edits/paths.ts overlapProbe).
 * Both are primary-key lookups, never a scan of the table.
 */
export const conflictsOver = (exact: string, range: string): string => `WITH hits AS (
    SELECT resource, lock_id FROM lock_resources WHERE board = @board AND ${exact}
    UNION
    SELECT resource, lock_id FROM lock_resources WHERE board = @board AND ${range})
  SELECT hits.resource AS held, l.lock_id, l.agent AS holder, ${LEASE} AS lease_until,
         l.worktree, l.held_since, COALESCE(l.task_id, l.hold_task) AS task_id,
         (l.claim_id IS NULL AND l.held_since IS NULL) AS plain
  FROM hits JOIN locks l ON l.lock_id = hits.lock_id LEFT JOIN tasks t ON t.id = l.task_id
  WHERE ${CONFLICTING} ORDER BY hits.resource, l.lock_id`;

const liveWhere = (where: string, resources: string) =>
  `SELECT l.lock_id, l.board, l.agent, COALESCE(l.task_id, l.hold_task) AS task_id, l.created_at,
          ${LEASE} AS lease_until, ${resources} AS resources, l.worktree, l.held_since
   FROM locks l LEFT JOIN tasks t ON t.id = l.task_id
   WHERE ${where} AND ${LIVE} ORDER BY l.created_at, l.lock_id`;

/**
 * The statements both dialects share, given how the store lists a lock's keys in a row (`resources(alias)`:
 * an array, or NULL when the store reads them with `resourcesOf`) and which work-tree locks have ended (`ended`).
 */
export const locksCommon = (resources: (alias: string) => string, ended: string) => ({
  // One statement per filter, so each is an index lookup rather than an `@x IS NULL OR` scan.
  live: {
    lock: liveWhere('l.lock_id = @key', resources('l')),
    board: liveWhere('l.board = @key', resources('l')),
    all: liveWhere('@key::text IS NULL', resources('l')),
  },
  resourcesOf: 'SELECT resource FROM lock_resources WHERE lock_id = @lock_id ORDER BY resource',
  renew: `UPDATE locks SET lease_until = @now::bigint + COALESCE(@lease_ms::bigint, lease_ms)
     WHERE lock_id = @lock_id AND claim_id IS NULL AND held_since IS NULL AND lease_until > @now::bigint
     RETURNING lease_until`,
  byClaim: 'SELECT lock_id FROM locks WHERE claim_id = @claim_id',
  bySession: 'SELECT lock_id, agent, worktree FROM locks WHERE session_id = @session_id ORDER BY lock_id',
  // Change holds (holds-store.ts).
  ended: `SELECT l.lock_id, l.board, l.agent, l.hold_task AS task_id, l.worktree, ${resources('l')} AS resources
     FROM locks l WHERE ${ended} AND (@board::text IS NULL OR l.board = @board::text) ORDER BY l.lock_id`,
  endedOne: `SELECT l.ended_for FROM locks l WHERE l.lock_id = @lock_id AND ${ended} FOR UPDATE`,
  isHold: 'SELECT 1 AS hold FROM locks WHERE lock_id = @lock_id AND held_since IS NOT NULL',
  hold: `UPDATE locks SET held_since = @now::bigint, lease_until = ${HOLD_LEASE}, ended_for = NULL
     WHERE lock_id = @lock_id RETURNING *, ${resources('locks')} AS resources`,
  mine: `SELECT l.lock_id, ${resources('l')} AS resources FROM locks l
     WHERE l.board = @board AND l.agent = @agent AND l.worktree = @worktree AND l.claim_id IS NULL
       AND l.held_since IS NULL ORDER BY l.lock_id`,
});

/** The statements, each store's own, and its `free` (one shared signature; its answer: the locks it ended). */
export type LocksSql = ReturnType<typeof locksCommon> &
  Record<
    | 'conflicts' // the conflict check (conflictsOver)
    | 'lockBoard' // serialises lock decisions on a board until COMMIT ('' where one writer at a time already)
    | 'insertLock' // a new lock's row (PostgreSQL: with its keys, @resources)
    | 'addResource' // one key of a new lock, in sorted order ('' where insertLock wrote them)
    | 'renewAll' // an edit's renewal of the agent's plain locks @ids
    | 'dropKeys' // an ended lock's keys not in @keep
    | 'trimKeys', // a hold's keys not in @keep, the dropped ones returned
    string
  > & {
    free: InTx<[target: LockTarget, reason: string, opts: FreeOpts], string[]>;
  };
