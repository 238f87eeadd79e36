/** Claims (SPEC §2) of the SQLite store and its sweep; how they end is written once (shared/claim-ends-store.ts). */
import { claimNextLoop, type NextLook } from '../shared/claim.js';
import type { OwnClaims } from '../shared/composed-store.js';
import { claimNext, peekNext } from './claim.js';
import { anyDue, moveDue } from './due.js';
import { anyLockLapsed, freeLapsedLocks, LOCKS_SQL } from './locks.js';
import type { SqliteCore } from './store-core.js';

export const claimsPort = (s: SqliteCore): OwnClaims => ({
  async claimNext(cmd) {
    // Peek first (read-only), so an empty claim-next takes no write lock. The claiming
    // transaction moves due rows before it claims, so the due probe is needed out here
    // only when the peek found nothing: a lapsed lease may have something to requeue.
    // Another writer may win the candidate we peeked at; then look again.
    // Under load a batch is already queued for this turn: join it without the peek. The claim then looks inside
    // the batch's transaction (due rows already moved), and an empty answer opens no write transaction of its own.
    if (s.batchPending) return s.write((tx) => claimNext(tx, cmd));
    const look = async (): Promise<NextLook> => {
      const now = s.clock.now();
      // The common case first: one read-only statement finds a candidate. Only when it finds none are both
      // looks taken from one snapshot: a requeue committed by another process between two separate reads
      // would hide the task from both (the peek saw it claimed, the probe no longer due) and answer none.
      // A task id to claim, or why there is none.
      const peeked = s.read((): string | { none: 'due' | 'empty' } => {
        const id = peekNext(s.db, now, cmd);
        if (id !== null) return id;
        return s.snapshot(() => peekNext(s.db, now, cmd) ?? { none: anyDue(s.db, now) ? 'due' : 'empty' });
      });
      if (typeof peeked !== 'string') return peeked.none;
      const grant = await s.write((tx) => claimNext(tx, cmd, peeked));
      return grant ? { grant } : 'taken';
    };
    return claimNextLoop(look, () => s.write(() => undefined));
  },
  async sweep() {
    const now = s.clock.now();
    if (!s.read(() => anyDue(s.db, now) || anyLockLapsed(s.db, now))) return 0;
    // The batch moved the due tasks before this write ran (tx.moved); nothing is left for moveDue here.
    return s.write((tx) => tx.moved + moveDue(tx, LOCKS_SQL) + freeLapsedLocks(tx));
  },
});
