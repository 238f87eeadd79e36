/** File locks (SPEC rule 11): try-locks with leases, renewed and released by lock_id. */
import { newLockId } from '../ids.js';
import { DEFAULT_BOARD, DEFAULT_LEASE_S } from '../model.js';
import { defineOperation } from '../operation.js';
import { unwrapLock } from '../outcomes.js';
import {
  ListLocksInput,
  ListLocksOutput,
  LockFilesInput,
  LockFilesOutput,
  RenewLockInput,
  HeartbeatOutput as RenewLockOutput,
  UnlockInput,
  UnlockOutput,
} from '../schemas.js';
import { honouringHolds, lockConflictError } from './settle-holds.js';
import { coordNote, trackTree } from './worktree-context.js';

export const lockFiles = defineOperation({
  name: 'lock_files',
  summary:
    'Lock files (or directories, with a trailing /) for a lease: all of them or none; a conflict names each holder.',
  input: LockFilesInput,
  output: LockFilesOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const lock_id = newLockId();
    const tree = await trackTree(ctx, board, input.agent, input.worktree);
    const outcome = await honouringHolds(ctx, board, () =>
      ctx.store.acquireLocks({
        lock_id,
        board,
        agent: input.agent,
        resources: input.resources,
        lease_ms: (input.lease_s ?? DEFAULT_LEASE_S) * 1000,
        session_id: ctx.session_id ?? null,
        worktree: tree?.root ?? null,
      }),
    );
    ctx.presence.touch(input.agent, board, ctx.clock.now());
    if (!outcome.ok) {
      const held = await lockConflictError(ctx, outcome, tree?.root ?? null);
      if (held) throw held;
    }
    const { lock } = unwrapLock(outcome, lock_id);
    return { lock_id: lock.lock_id, resources: lock.resources, lease_until: lock.lease_until };
  },
});

export const renewLock = defineOperation({
  name: 'renew_lock',
  summary: 'Extend a lock’s lease (default: the lease it was taken with). A claim’s lock follows its claim.',
  input: RenewLockInput,
  output: RenewLockOutput,
  async run(ctx, input) {
    const outcome = await ctx.store.renewLock(input.lock_id, input.lease_s === undefined ? null : input.lease_s * 1000);
    return unwrapLock(outcome, input.lock_id);
  },
});

export const unlockFiles = defineOperation({
  name: 'unlock_files',
  summary:
    'Release a lock by lock_id. Releasing again, or a lock that already lapsed, is fine. With force (for a person), a change hold ends too, noted on its task.',
  input: UnlockInput,
  output: UnlockOutput,
  async run(ctx, input) {
    if (input.force) {
      const lock = (await ctx.store.listLocks()).find((l) => l.lock_id === input.lock_id);
      const { released } = await ctx.store.forceReleaseLock(input.lock_id);
      if (released && lock?.hold && lock.task_id) {
        await coordNote(
          ctx,
          lock.task_id,
          input.agent ?? 'coord',
          `hold on ${lock.resources.join(', ')} (worktree ${lock.worktree}) ended by ${input.agent ?? 'a person'} with unlock --force at ${new Date(ctx.clock.now()).toISOString()}; those changes are not merged yet`,
        );
      }
      return { released: true as const };
    }
    await ctx.store.releaseLock(input.lock_id);
    return { released: true as const };
  },
});

export const listLocks = defineOperation({
  name: 'list_locks',
  summary: 'The live locks on a board (or every board), with holder and lease end.',
  input: ListLocksInput,
  output: ListLocksOutput,
  async run(ctx, input) {
    return { locks: await ctx.store.listLocks(input.board) };
  },
});
