/**
 * Rule 10 of both stores: claim a task and lock its files in one transaction, or do neither. The claim stays
 * one conditional UPDATE (rule 1); when it wins but the files are held, a savepoint undoes it, so the task is
 * still queued and no event of the undone claim is heard or written. A program (program.ts) over the edges' and
 * the locks' statements (its `ClaimFilesSql`); the savepoint is plain SQL, the same in both dialects.
 */
import type { ClaimGrant, Lock } from '../../core/model.js';
import type { ClaimCommand, Outcome } from '../../core/ports.js';
import { newLockId } from '../../core/shared/ids.js';
import { claimById } from './claim.js';
import type { DepsSql } from './deps.js';
import type { LocksSql } from './locks-sql.js';
import { claimLock, insertLock } from './locks-store.js';
import { call, type Prog, type Q, run } from './program.js';
import type { TxOf } from './tx.js';

export interface ClaimFilesSql {
  locks: LocksSql;
  /** The edges' statements (a blocked claim names its open blockers). */
  deps: DepsSql;
}

type AnyTx = TxOf<unknown, unknown>;
const eventsSoFar = (tx: AnyTx): number => tx.events.length;
const forgetEvents = (tx: AnyTx, mark: number): void => {
  tx.events.length = mark;
};

/** Opens the savepoint in the write's transaction; answers the mark of the events appended so far. */
function* savepoint(): Prog<number> {
  yield* run('SAVEPOINT claim_with_files');
  return yield* call(eventsSoFar);
}

/** Rolls back to the savepoint and forgets the events appended after `mark` (before they are heard or written). */
function* undo(mark: number): Prog<void> {
  yield* run('ROLLBACK TO SAVEPOINT claim_with_files');
  yield* call(forgetEvents, mark);
}

const summary = (lock: Lock) => ({ lock_id: lock.lock_id, resources: lock.resources });

export function* claimWithFiles(q: Q<ClaimFilesSql>, cmd: ClaimCommand): Prog<Outcome<ClaimGrant>> {
  const mark = cmd.files.length > 0 ? yield* savepoint() : 0;
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
  yield* undo(mark);
  return locked;
}
