/**
 * Rule 5, fencing, written once for both stores: the predicate that names the current claim and a live lease
 * (each store's release adds its own, `<store>/fenced.ts`), the heartbeat and the submit — programs over one
 * conditional write each, in PostgreSQL's text (SQLite's runner leaves out the casts) — a miss explained from
 * the row as it is now, and what a release or a submit that won does: the claim ends with its locks, its event,
 * a completed task's dependents. PostgreSQL's statements and their number are as before.
 */
import { explainFenceLoss, explainSubmitLoss } from '../../core/board/rules.js';
import type { Task } from '../../core/model.js';
import type { FenceCommand, Outcome, SubmitCommand, TreeToVerify } from '../../core/ports.js';
import { blockerCompleted, type DepsSql } from './deps.js';
import type { EndedClaimRow } from './due.js';
import { integrationOf } from './integration-rows.js';
import type { LocksSql } from './locks-sql.js';
import { freeClaimLocks } from './locks-store.js';
import { emit, get, type Prog, type Q } from './program.js';
import { type TaskRow, toFacts, toTask, treeToVerify } from './rows.js';
import { taskFinished, taskRequeued } from './task-events.js';

export const FENCE = `id = @task_id AND state = 'claimed' AND claim_id = @claim_id AND lease_until > @now::bigint`;

/** The row as it is now, to explain a miss. */
export const CURRENT_ROW = 'SELECT * FROM tasks WHERE id = @id';

export const HEARTBEAT = `UPDATE tasks SET lease_until = @now::bigint + COALESCE(@lease_ms::bigint, claim_lease_ms),
       updated_at = @now::bigint
     WHERE ${FENCE} RETURNING lease_until`;

/** The submit's write; `treeKnown`: the claim recorded its work tree (SPEC §14, rows.ts claimTreeOf). */
const submitSql = (treeKnown: string) =>
  `UPDATE tasks SET state = @status, result_status = @status, result = @result, result_hash = @result_hash,
            lease_until = NULL, claim_session = NULL, claim_end = 'submitted', updated_at = @now::bigint,
            change_record = COALESCE(change_record, @change::text)
     WHERE ${FENCE} AND NOT (@unless_tree::boolean AND ${treeKnown}) RETURNING *`;

/** SPEC §14: a submit with `unless_tree` stops when the claim recorded its work tree (NULL-safe in both dialects). */
const SUBMIT = submitSql('COALESCE(claim_tree_of = claim_id AND claim_worktree IS NOT NULL, false)');

export type HeartbeatCommand = FenceCommand & { lease_ms: number | null };

export const heartbeatParams = (cmd: HeartbeatCommand, now: number) => ({
  task_id: cmd.task_id,
  claim_id: cmd.claim_id,
  lease_ms: cmd.lease_ms,
  now,
});

/** The heartbeat's answer when the fence held: the new lease. */
export const leaseAnswer = (r: { lease_until: number }) => ({
  ok: true as const,
  lease_until: new Date(Number(r.lease_until)).toISOString(),
});

/** The submit's parameters (`unless_tree` a boolean: SQLite binds it as 1 or 0). */
export const submitParams = (cmd: SubmitCommand, now: number) => ({
  unless_tree: cmd.unless_tree === true,
  change: cmd.change ? JSON.stringify(cmd.change) : null,
  task_id: cmd.task_id,
  claim_id: cmd.claim_id,
  status: cmd.status,
  result: JSON.stringify(cmd.result ?? null),
  result_hash: cmd.result_hash,
  now,
});

/** A fenced write that changed no row: why, from the row as it is now. */
export const fenceLost = (now: TaskRow | undefined, cmd: FenceCommand, at: number) =>
  explainFenceLoss(now ? toFacts(now) : null, cmd.claim_id, at);

/** The heartbeat, the same statement in both stores: the new lease, or why the fence did not hold. */
export function* heartbeat(q: Q<unknown>, cmd: HeartbeatCommand): Prog<Outcome<{ lease_until: string }>> {
  const r = yield* get<{ lease_until: number }>(HEARTBEAT, heartbeatParams(cmd, q.now));
  return r ? leaseAnswer(r) : fenceLost(yield* get<TaskRow>(CURRENT_ROW, { id: cmd.task_id }), cmd, q.now);
}

/**
 * A submit that changed no row, from the row as it is now: the work tree to verify first (SPEC §14), the
 * same submit again (a replay answers the task), or why it lost.
 */
export function submitMissed(
  now: TaskRow | undefined,
  cmd: SubmitCommand,
  at: number,
): Outcome<{ task: Task; replayed: boolean }> | TreeToVerify {
  const verify = treeToVerify(now, cmd, at);
  if (verify) return verify;
  const why = explainSubmitLoss(now ? toFacts(now) : null, cmd.claim_id, cmd.result_hash, at);
  if (why.ok && now) return { ok: true, task: toTask(now), replayed: true };
  return why.ok ? { ok: false, reason: 'not_found' } : why;
}

/** What a submit runs in its transaction: the locks' statements (the claim's end) and the edges' (its dependents). */
export interface SubmitSql {
  locks: LocksSql;
  deps: DepsSql;
}

/**
 * A store's release: SQLite reads who held the claim and how until (`before`, old_…), then releases (it holds
 * the write lock); PostgreSQL's one statement returns them itself from the locked old version (`before` empty).
 */
export interface ReleaseSql {
  before: string;
  release: string;
}

type Held = Pick<EndedClaimRow, 'old_claimed_by' | 'old_claim_session' | 'old_lease_until'>;

/**
 * The fenced release (rule 5), or a handoff to `to`: one conditional write; when it won, the claim ends (its
 * locks go with it) with its event; a miss is explained from the row as it is now.
 */
export function* release(
  q: Q<{ release: ReleaseSql; locks: LocksSql }>,
  cmd: FenceCommand & { to: string | null },
): Prog<Outcome<{ task: Task }>> {
  const held = yield* get<Held>(q.sql.release.before, { task_id: cmd.task_id });
  const r = yield* get<TaskRow & Partial<Held>>(q.sql.release.release, { ...cmd, now: q.now });
  if (!r) return fenceLost(yield* get<TaskRow>(CURRENT_ROW, { id: cmd.task_id }), cmd, q.now);
  const ended = { ...r, ...held } as EndedClaimRow;
  const { old_claimed_by, old_claim_session, old_lease_until, ...after } = ended;
  yield* freeClaimLocks({ sql: q.sql.locks, now: q.now }, ended.claim_id);
  yield* emit(taskRequeued(after, old_claimed_by, cmd.to ? 'handoff' : 'released', { to: cmd.to }));
  return { ok: true, task: toTask(after) };
}

/** A submit that won: the claim ends (its locks go with it), with its event; a completed task's dependents learn. */
export function* submitWon(
  q: Q<SubmitSql>,
  r: TaskRow,
  cmd: SubmitCommand,
): Prog<{ ok: true; task: Task; replayed: false }> {
  yield* freeClaimLocks({ sql: q.sql.locks, now: q.now }, r.claim_id);
  yield* emit(taskFinished(r, cmd.status));
  // SPEC §11: work with commits lands when its merge is recorded, not now.
  if (r.state === 'completed') yield* blockerCompleted({ sql: q.sql.deps, now: q.now }, r, integrationOf(cmd) !== null);
  return { ok: true, task: toTask(r), replayed: false };
}

/** The fenced submit (rule 5): one conditional write; a miss explained from the row as it is now. */
export function* submit(
  q: Q<SubmitSql>,
  cmd: SubmitCommand,
): Prog<Outcome<{ task: Task; replayed: boolean }> | TreeToVerify> {
  const r = yield* get<TaskRow>(SUBMIT, submitParams(cmd, q.now));
  if (r) return yield* submitWon(q, r, cmd);
  return submitMissed(yield* get<TaskRow>(CURRENT_ROW, { id: cmd.task_id }), cmd, q.now);
}
