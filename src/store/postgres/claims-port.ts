/**
 * Claims (SPEC §2) of the PostgreSQL store, its one-statement submit and its sweep; how a claim ends is written
 * once (shared/claim-ends-store.ts: `general`, its single writes).
 */
import { claimNextLoop, type NextLook } from '../shared/claim.js';
import type { ClaimWrites } from '../shared/claim-ends-store.js';
import type { OwnClaims } from '../shared/composed-store.js';
import { type Probe, sweepProbeSql } from './due.js';
import { freeLapsedLocks } from './locks.js';
import { claimNextOne, claimOne, submitOne } from './one-trip.js';
import { guarded } from './pg-errors.js';
import type { PostgresCore } from './store-core.js';

export const claimsPort = (s: PostgresCore, general: ClaimWrites): OwnClaims => ({
  claimTask: (cmd) =>
    guarded(async () => {
      // One round trip when it wins and locks no files (one-trip.ts); anything else takes the general path.
      if (cmd.files.length === 0) {
        const one = await claimOne(s.pool, s.clockNow(), cmd);
        if (one.done) {
          await s.committed([one.event]);
          return { ok: true as const, ...one.value };
        }
      }
      return general.claimTask(cmd);
    }),
  claimNext: (cmd) =>
    guarded(async () => {
      // One statement: the look, the claim and its event (one-trip.ts). An empty claim-next writes nothing.
      // Something due is moved by a write first; a candidate that other workers took first (SKIP LOCKED, or
      // they committed) sends us to look again.
      const look = async (): Promise<NextLook> => {
        const one = await claimNextOne(s.pool, s.clockNow(), cmd);
        if (!one.done) return one.due ? 'due' : one.claimable ? 'taken' : 'empty';
        await s.committed([one.event]);
        return { grant: one.value };
      };
      return claimNextLoop(look, () => s.write(async () => undefined));
    }),
  async submit(cmd) {
    // A note, a change record or holds to take (SPEC §14) go the general way.
    if (cmd.note || cmd.change || cmd.hold) return general.submit(cmd);
    return guarded(async () => {
      // One round trip in the common case (coord_submit, migration 0005); replays, losses, locks, dependents
      // and anything due take the general path.
      const one = await submitOne(s.pool, s.clockNow(), cmd);
      // The claim recorded its work tree: verify it first (SPEC §14); nothing was written.
      if (one.tree) return one.tree;
      if (one.done) {
        await s.committed([one.event]);
        // The statement ran only with no lock of the claim to end (coord_submit): none waits for git.
        return { ok: true as const, ...one.value, ended_locks: false };
      }
      return general.submit(cmd);
    });
  },
  sweep: () =>
    guarded(async () => {
      const probe = (await s.pool.query<Probe & { locks_due: boolean }>(sweepProbeSql(s.clockNow()))).rows[0]!;
      if (!probe.due && !probe.locks_due) return 0;
      return s.write(async (tx) => tx.moved + (await freeLapsedLocks(tx)));
    }),
});
