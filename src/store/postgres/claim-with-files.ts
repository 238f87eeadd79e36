/**
 * Rule 10: claim a task and lock its files in one transaction, or do neither.
 * The claim stays one conditional UPDATE (rule 1); when it wins but the files
 * are held, a savepoint undoes it, so the task is still queued and no event
 * of the undone claim is written.
 */

import type { ClaimGrant, Lock } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { newLockId } from '../../core/shared/ids.js';
import { claimTask } from './claim.js';
import { claimLock, insertLock } from './locks.js';
import type { Tx } from './tx.js';

const summary = (lock: Lock) => ({ lock_id: lock.lock_id, resources: lock.resources });

export async function claimWithFiles(tx: Tx, cmd: ClaimCommand): Promise<Outcome<ClaimGrant>> {
  if (cmd.files.length === 0) {
    const out = await claimTask(tx, cmd);
    if (!out.ok || !out.reclaimed) return out;
    // Rule 2: a re-claim returns the existing claim unchanged, with the files it locked.
    const held = await claimLock(tx.db, tx.now, out.claim_id);
    return held ? { ...out, lock: summary(held) } : out;
  }
  const mark = tx.pending.length;
  await tx.db.query({ text: 'SAVEPOINT claim_with_files' });
  const out = await claimTask(tx, cmd);
  if (!out.ok) return out;
  if (out.reclaimed) {
    const held = await claimLock(tx.db, tx.now, out.claim_id);
    return held ? { ...out, lock: summary(held) } : out;
  }
  const locked = await insertLock(
    tx,
    {
      lock_id: newLockId(),
      board: out.task.board,
      agent: cmd.agent,
      resources: cmd.files,
      lease_ms: cmd.lease_ms,
      session_id: cmd.session_id,
      worktree: cmd.worktree ?? null,
    },
    { task_id: out.task.id, claim_id: out.claim_id, lease_until: Date.parse(out.lease_until) },
  );
  if (locked.ok) return { ...out, lock: summary(locked.lock) };
  await tx.db.query({ text: 'ROLLBACK TO SAVEPOINT claim_with_files' });
  tx.pending.length = mark;
  return locked;
}
