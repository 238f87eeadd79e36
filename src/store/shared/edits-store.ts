/**
 * SPEC §10 "One decision, one round trip" of both stores: the look, the deny or the auto-lock, and its renewal
 * in one write transaction (SQLite: BEGIN IMMEDIATE, the group commit's; PostgreSQL: under the board's advisory
 * lock), so two agents deciding one free path at once — through one daemon or two — can never both be allowed.
 * A read-only look answers first when there is nothing to write — the agent already holds every key with time
 * to spare, or another agent holds one — so the common repeated edit takes no write lock at all.
 */
import { type EditPlan, type Overlap, planEdit } from '../../core/edits/edit-decision.js';
import type { DecideEditCommand, EditDecision } from '../../core/ports.js';
import { answerOf, iso } from './edit-answer.js';
import type { LocksSql } from './locks-sql.js';
import { findOverlaps, freeLapsedLocks, writeLock } from './locks-store.js';
import type { Prog, Q } from './program.js';
import { run } from './program.js';

/**
 * Every overlap that can block or cover the edit. SPEC §14's change holds (locks that outlive their lock,
 * owned by a work tree and ignored for agents of `cmd.worktree`) belong here, so that they are decided in
 * this same transaction.
 */
const overlapsOf = (sql: LocksSql, now: number, cmd: DecideEditCommand): Prog<Overlap[]> =>
  findOverlaps(sql, now, cmd.board, cmd.resources, cmd.outside ? null : (cmd.worktree ?? null));

/** The plan from a read-only look (no transaction needed: see the top of this file). */
export function* peekEdit(sql: LocksSql, now: number, cmd: DecideEditCommand): Prog<EditPlan> {
  return planEdit(yield* overlapsOf(sql, now, cmd), cmd, now);
}

/** Decides again inside the write transaction (the look may be stale by now), then writes what it says. */
export function* decideEdit(q: Q<LocksSql>, cmd: DecideEditCommand): Prog<EditDecision> {
  yield* run(q.sql.lockBoard, { board: cmd.board });
  // Lapsed locks no longer conflict; freed first so the event log never shows an acquisition over them.
  yield* freeLapsedLocks(q);
  const plan = planEdit(yield* overlapsOf(q.sql, q.now, cmd), cmd, q.now);
  if (plan.decision === 'deny') return answerOf(plan);
  if (plan.renew.length > 0) yield* run(q.sql.renewAll, { ids: plan.renew, now: q.now, lease_ms: cmd.lease_ms });
  const lock =
    plan.take.length === 0
      ? null
      : yield* writeLock(
          q,
          {
            lock_id: cmd.lock_id,
            board: cmd.board,
            agent: cmd.agent,
            resources: plan.take,
            lease_ms: cmd.lease_ms,
            session_id: cmd.session_id,
            worktree: cmd.worktree ?? null,
          },
          null,
        );
  return { decision: 'allow', lock, renewed: plan.renew, lease_until: iso(plan.lease_until) };
}
