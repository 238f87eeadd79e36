/** File locks (SPEC rule 11): try-locks with leases, renewed and released by lock_id. */

import { unwrapLock } from '../board/outcomes.js';
import { isDirectory, normaliseResource } from '../edits/paths.js';
import { CoordError } from '../errors.js';
import { DEFAULT_BOARD, DEFAULT_LEASE_S, type Lock } from '../model.js';
import { type Ctx, defineOperation } from '../operation.js';
import {
  ListLocksOutput,
  LockFilesOutput,
  HeartbeatOutput as RenewLockOutput,
  UnlockOutput,
} from '../output-schemas.js';
import type { Outcome } from '../ports.js';
import { ListLocksInput, LockFilesInput, RenewLockInput, UnlockInput } from '../schemas.js';
import { newLockId } from '../shared/ids.js';
import { honouringHolds, lockConflictError, settleEnded } from './settle-holds.js';
import { coordNote, trackTree } from './worktree-context.js';

export const lockFiles = defineOperation({
  name: 'lock_files',
  summary:
    'Lock files (or directories, with a trailing /) for a lease: all of them or none; a conflict names each holder.',
  input: LockFilesInput,
  output: LockFilesOutput,
  async run(ctx, input) {
    const board = input.board ?? DEFAULT_BOARD;
    const tree = await trackTree(ctx, board, input.agent, input.worktree);
    // A port is the machine's, not a board's: a port lock on any board of this daemon is in the way.
    const ports = input.resources.filter(isMachineWide);
    if (ports.length > 0) await portsFree(ctx, board, ports, null);
    // Own locks found in the way can lapse or be released before they are renewed (the sweep, another daemon):
    // then the files are free and the lock is simply taken again — a few tries, never a 404 for a lock request.
    for (let attempt = 1; ; attempt++) {
      const lock_id = newLockId();
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
      if (
        !outcome.ok &&
        outcome.reason === 'lock_conflict' &&
        outcome.conflicts.every((c) => c.holder === input.agent && !c.hold)
      ) {
        const mine = await alreadyYours(ctx, board, input, outcome.conflicts);
        if (mine) return mine;
        if (attempt >= 3) unwrapLock(outcome, lock_id); // throws the lock_conflict naming them
        continue;
      }
      if (!outcome.ok) {
        const held = await lockConflictError(ctx, outcome, tree?.root ?? null);
        if (held) throw held;
      }
      const { lock } = unwrapLock(outcome, lock_id);
      // Two boards may take one port at the same instant: the older lock keeps it (ties by lock id).
      if (ports.length > 0) await portsFree(ctx, board, ports, lock);
      return { lock_id: lock.lock_id, resources: lock.resources, lease_until: lock.lease_until };
    }
  },
});

/** `port:N` keys are the machine's (SPEC §14): they conflict across boards; other keys are per board. */
export const isMachineWide = (key: string): boolean => /^port:\d{1,5}$/.test(key);

/**
 * A port lock on another board of this daemon conflicts (lock_conflict naming holder and board). With `mine`
 * (just taken), only an older rival counts, and `mine` is given back before the answer.
 */
async function portsFree(ctx: Ctx, board: string, ports: string[], mine: Lock | null): Promise<void> {
  const older = (l: Lock) =>
    !mine || l.created_at < mine.created_at || (l.created_at === mine.created_at && l.lock_id < mine.lock_id);
  const rivals = (await ctx.store.listLocks()).filter(
    (l) => l.board !== board && l.resources.some((r) => ports.includes(r)) && older(l),
  );
  if (rivals.length === 0) return;
  if (mine) await ctx.store.releaseLock(mine.lock_id);
  const conflicts = rivals.flatMap((l) =>
    l.resources
      .filter((r) => ports.includes(r))
      .map((r) => ({ resource: r, held: r, holder: l.agent, lock_id: l.lock_id, lease_until: l.lease_until })),
  );
  throw new CoordError(
    'lock_conflict',
    `${conflicts.map((c) => `${c.resource} is held by ${c.holder} on board ${rivals.find((l) => l.lock_id === c.lock_id)?.board}`).join('; ')} — ports are the machine's, whatever the board: take another (coord reserve port finds a free one)`,
    { conflicts },
  );
}

type Conflicts = Extract<Outcome<unknown>, { reason: 'lock_conflict' }>['conflicts'];

/**
 * Locking what the same agent already holds is not a conflict with itself ("ask the holder"): when one of its
 * locks covers every path asked for, that lock is renewed (a claim's lock follows its claim and is kept as is)
 * and answered; otherwise the answer names the agent's own locks to renew or release.
 */
async function alreadyYours(
  ctx: Ctx,
  board: string,
  input: { agent: string; resources: string[]; lease_s?: number | undefined },
  conflicts: Conflicts,
): Promise<{ lock_id: string; resources: string[]; lease_until: string } | null> {
  const keys = input.resources.map((r) => {
    const n = normaliseResource(r);
    return n.ok ? n.key : r;
  });
  const covers = (l: Lock) =>
    keys.every((k) => l.resources.some((h) => h === k || (isDirectory(h) && k.startsWith(h))));
  const mine = (await ctx.store.listLocks(board)).filter((l) => l.agent === input.agent);
  const whole = mine.find(covers);
  if (whole) {
    if (whole.task_id !== null)
      return { lock_id: whole.lock_id, resources: whole.resources, lease_until: whole.lease_until };
    const lease_ms = input.lease_s === undefined ? null : input.lease_s * 1000;
    const renewed = await ctx.store.renewLock(whole.lock_id, lease_ms);
    if (!renewed.ok) return null; // it ended since it was listed: the caller takes the files again
    const { lease_until } = unwrapLock(renewed, whole.lock_id);
    return { lock_id: whole.lock_id, resources: whole.resources, lease_until };
  }
  const ids = mine.filter((l) => conflicts.some((c) => l.resources.includes(c.held))).map((l) => l.lock_id);
  if (ids.length === 0) return null; // the locks in the way ended since the attempt: try again
  throw new CoordError(
    'lock_conflict',
    `${conflicts.map((c) => c.resource).join(', ')} ${conflicts.length === 1 ? 'is' : 'are'} already yours (lock ${ids.join(', ')}) — renew that lock (coord renew ${ids[0] ?? '<lock_id>'}) or unlock it before locking a different set`,
    { conflicts },
  );
}

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
    if (ctx.acting_agent !== undefined) {
      const lock = (await ctx.store.listLocks()).find((l) => l.lock_id === input.lock_id);
      // Gone already (released, lapsed): releasing again is fine, and ends nothing of anyone's.
      if (!lock) return { released: true as const };
      // A hold is the work tree's until its work is merged: even its own agent does not end it.
      if (lock.agent !== ctx.acting_agent || lock.hold) throw notYours(lock, ctx.acting_agent);
    }
    // An agent's release is never forced: its lock on paths pending in its work tree still becomes a hold.
    if (input.force && ctx.acting_agent === undefined) {
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
    const { released } = await ctx.store.releaseLock(input.lock_id);
    // SPEC §14: a work tree's lock holds on only to the paths git says are pending there.
    if (released) await settleEnded(ctx).catch(() => 0);
    return { released: true as const };
  },
});

/**
 * SPEC §14: an agent ends only its own locks; ending another's lock or any hold (work not merged yet) is a
 * person's act.
 */
const notYours = (lock: Lock, agent: string): CoordError =>
  new CoordError(
    'forbidden',
    lock.hold
      ? `lock ${lock.lock_id} is a change hold of ${lock.agent === agent ? 'your' : `${lock.agent}'s`} work not merged yet — it ends by itself once that work is merged (changes shows it); only a person ends it sooner (coord unlock --force)`
      : `lock ${lock.lock_id} is ${lock.agent}'s, not yours — an agent ends only its own locks: ask ${lock.agent} (send_message), or a person ends it (coord unlock --force)`,
    { lock_id: lock.lock_id, holder: lock.agent },
  );

export const listLocks = defineOperation({
  name: 'list_locks',
  summary: 'The live locks on a board (or every board), with holder and lease end.',
  input: ListLocksInput,
  output: ListLocksOutput,
  async run(ctx, input) {
    return { locks: await ctx.store.listLocks(input.board) };
  },
});
