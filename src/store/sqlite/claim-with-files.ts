/**
 * Rule 10: claim a task and lock its files in one transaction, or do neither.
 * The claim stays one conditional UPDATE (rule 1); when it wins but the files
 * are held, a savepoint undoes it, so the task is still queued and no event
 * of the undone claim is published.
 */

import type { ClaimGrant, Lock } from '../../core/model.js';
import type { ClaimCommand, Lost, Outcome } from '../../core/ports.js';
import { newLockId } from '../../core/shared/ids.js';
import { claimTask } from './claim.js';
import { claimLock, insertLock } from './locks.js';
import type { Tx } from './tx.js';

class Undo {
  constructor(readonly lost: Lost) {}
}

const summary = (lock: Lock) => ({ lock_id: lock.lock_id, resources: lock.resources });

export function claimWithFiles(tx: Tx, cmd: ClaimCommand): Outcome<ClaimGrant> {
  const mark = tx.events.length;
  try {
    // A nested better-sqlite3 transaction is a SAVEPOINT inside the caller's BEGIN IMMEDIATE.
    return tx.db.transaction((): Outcome<ClaimGrant> => {
      const out = claimTask(tx, cmd);
      if (!out.ok) return out;
      if (out.reclaimed) {
        // Rule 2: a re-claim returns the existing claim unchanged, with the files it locked.
        const held = claimLock(tx.db, tx.now, out.claim_id);
        return held ? { ...out, lock: summary(held) } : out;
      }
      if (cmd.files.length === 0) return out;
      const locked = insertLock(
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
      if (!locked.ok) throw new Undo(locked);
      return { ...out, lock: summary(locked.lock) };
    })();
  } catch (e) {
    if (!(e instanceof Undo)) throw e;
    tx.events.length = mark;
    return e.lost;
  }
}
