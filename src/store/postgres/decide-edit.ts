/**
 * SPEC §10 "One decision, one round trip": the look, the deny or the
 * auto-lock, and its renewal in one transaction under the board's advisory
 * lock (locks.ts), so two agents deciding one free path at once — through one
 * daemon or two — can never both be allowed. A read-only look answers first
 * when there is nothing to write: the agent already holds every key with time
 * to spare, or another agent holds one.
 */
import { type EditPlan, type Overlap, planEdit } from '../../core/edits/edit-decision.js';
import type { DecideEditCommand, EditDecision } from '../../core/ports.js';
import { answerOf, iso } from '../shared/edit-answer.js';
import type { Queryable } from './database.js';
import { findOverlaps, freeLapsedLocks, lockBoard, writeLock } from './locks.js';
import { rows } from './sql.js';
import type { Tx } from './tx.js';

/**
 * Every overlap that can block or cover the edit. SPEC §14's change holds (locks that outlive their lock,
 * owned by a work tree and ignored for agents of `cmd.worktree`) belong here, so that they are decided in
 * this same transaction.
 */
const overlapsOf = (db: Queryable, now: number, cmd: DecideEditCommand): Promise<Overlap[]> =>
  findOverlaps(db, now, cmd.board, cmd.resources, cmd.outside ? null : (cmd.worktree ?? null));

/** The plan from a read-only look. */
export const peekEdit = async (db: Queryable, now: number, cmd: DecideEditCommand): Promise<EditPlan> =>
  planEdit(await overlapsOf(db, now, cmd), cmd, now);

/** Decides again inside the write transaction (the look may be stale by now), then writes what it says. */
export async function decideEdit(tx: Tx, cmd: DecideEditCommand): Promise<EditDecision> {
  await lockBoard(tx, cmd.board);
  // Lapsed locks no longer conflict; freed first so the event log never shows an acquisition over them.
  await freeLapsedLocks(tx);
  const plan = planEdit(await overlapsOf(tx.db, tx.now, cmd), cmd, tx.now);
  if (plan.decision === 'deny') return answerOf(plan);
  if (plan.renew.length > 0) {
    await rows(
      tx.db,
      `UPDATE locks SET lease_until = GREATEST(lease_until, @now::bigint + @lease_ms::bigint)
       WHERE lock_id = ANY (@ids::text[]) AND claim_id IS NULL AND lease_until > @now::bigint`,
      { ids: plan.renew, now: tx.now, lease_ms: cmd.lease_ms },
    );
  }
  const lock =
    plan.take.length === 0
      ? null
      : await writeLock(
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
