/**
 * SPEC §10 "One decision, one round trip": the look, the deny or the
 * auto-lock, and its renewal in one BEGIN IMMEDIATE transaction (the group
 * commit's), so two agents deciding one free path at once can never both be
 * allowed. A read-only look answers first when there is nothing to write —
 * the agent already holds every key with time to spare, or another agent
 * holds one — so the common repeated edit takes no write lock at all.
 */
import { type EditPlan, type Overlap, planEdit } from '../../core/edits/edit-decision.js';
import type { DecideEditCommand, EditDecision } from '../../core/ports.js';
import { answerOf, iso } from '../shared/edit-answer.js';
import type { Db } from './database.js';
import { findOverlaps, freeLapsedLocks, writeLock } from './locks.js';
import { stmt, type Tx } from './tx.js';

/**
 * Every overlap that can block or cover the edit. SPEC §14's change holds (locks that outlive their lock,
 * owned by a work tree and ignored for agents of `cmd.worktree`) belong here, so that they are decided in
 * this same transaction.
 */
const overlapsOf = (db: Db, now: number, cmd: DecideEditCommand): Overlap[] =>
  findOverlaps(db, now, cmd.board, cmd.resources, cmd.outside ? null : (cmd.worktree ?? null));

/** The plan from a read-only look (no transaction needed: see the top of this file). */
export const peekEdit = (db: Db, now: number, cmd: DecideEditCommand): EditPlan =>
  planEdit(overlapsOf(db, now, cmd), cmd, now);

/** Decides again inside the write transaction (the look may be stale by now), then writes what it says. */
export function decideEdit(tx: Tx, cmd: DecideEditCommand): EditDecision {
  // Lapsed locks no longer conflict; freed first so the event log never shows an acquisition over them.
  freeLapsedLocks(tx);
  const plan = planEdit(overlapsOf(tx.db, tx.now, cmd), cmd, tx.now);
  if (plan.decision === 'deny') return answerOf(plan);
  const renew = stmt(
    tx.db,
    `UPDATE locks SET lease_until = MAX(lease_until, @now + @lease_ms)
     WHERE lock_id = @lock_id AND claim_id IS NULL AND lease_until > @now`,
  );
  for (const lock_id of plan.renew) renew.run({ lock_id, now: tx.now, lease_ms: cmd.lease_ms });
  const lock =
    plan.take.length === 0
      ? null
      : writeLock(
          tx,
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
