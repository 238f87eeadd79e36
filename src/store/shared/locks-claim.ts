/**
 * Rule 10 of both stores: claim a task and lock its files in one transaction, or do neither. The claim stays
 * one conditional UPDATE (rule 1); when it wins but the files are held, a savepoint undoes it, so the task is
 * still queued and no event of the undone claim is written. A program (program.ts) over the store's claim and
 * savepoint (its `ClaimFilesSql`) and the locks' statements.
 */
import type { ClaimGrant, Lock } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { newLockId } from '../../core/shared/ids.js';
import { claimById } from './claim.js';
import type { DepsSql } from './deps.js';
import type { LocksSql } from './locks-sql.js';
import { claimLock, insertLock } from './locks-store.js';
import { call, type InTx, type Prog, type Q } from './program.js';

export interface ClaimFilesSql {
  locks: LocksSql;
  /** The edges' statements (a blocked claim names its open blockers). */
  deps: DepsSql;
  /** Opens the savepoint; answers the mark of the events written so far. */
  savepoint: InTx<[], number>;
  /** Rolls back to the savepoint and forgets the events after `mark`. */
  undo: InTx<[mark: number], void>;
}

const summary = (lock: Lock) => ({ lock_id: lock.lock_id, resources: lock.resources });

export function* claimWithFiles(q: Q<ClaimFilesSql>, cmd: ClaimCommand): Prog<Outcome<ClaimGrant>> {
  const mark = cmd.files.length > 0 ? yield* call(q.sql.savepoint) : 0;
  const out = yield* claimById({ sql: q.sql.deps, now: q.now }, cmd);
  if (!out.ok) return out;
  if (out.reclaimed) {
    // Rule 2: a re-claim returns the existing claim unchanged, with the files it locked.
    const held = yield* claimLock(q.sql.locks, q.now, out.claim_id);
    return held ? { ...out, lock: summary(held) } : out;
  }
  if (cmd.files.length === 0) return out;
  const locked = yield* insertLock(
    { sql: q.sql.locks, now: q.now },
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
  yield* call(q.sql.undo, mark);
  return locked;
}
