/**
 * Issue 8, item 2: the fencing predicates hold when a submit races a lease
 * lapse, a claim-next by another agent, a cancel or a ttl expiry on the same
 * task. Each racer is a worker thread with its own store (its own connection)
 * on one database, started together at a gate; one shared clock puts the race
 * just before, exactly on, or — moving mid-race — across the boundary.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../support/ctx.js';
import { type PgServer, startPostgres } from '../support/postgres.js';
import { type Arena, allEvents, openArena, Tally } from './race-arena.js';
import { cancelRound } from './race-cancel.js';
import { checkEventLog } from './race-event-log.js';
import { leaseLapseRound } from './race-lease-lapse.js';
import { staleClaimRound } from './race-stale-claim.js';
import type { StoreSpec } from './race-store.js';
import { ttlRound, ttlTasks } from './race-ttl.js';

interface Plan {
  name: string;
  spec: () => Promise<StoreSpec>;
  done?: () => Promise<void>;
  /** Rounds per scenario. */
  rounds: { lapse: number; cancel: number; ttl: number; stale: number };
  /** Random start delay (µs) of each racer and of a mid-race clock move: about one call's duration. */
  jitter_us: number;
}

let pg: PgServer | undefined;
let dir: string | undefined;
const plans: Plan[] = [
  {
    name: 'sqlite',
    spec: async () => {
      dir = tempDir('coord-races-');
      return { kind: 'sqlite', path: join(dir, 'coord.db') };
    },
    done: async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    rounds: { lapse: 1_000, cancel: 1_000, ttl: 1_000, stale: 1_000 },
    jitter_us: 400,
  },
  {
    name: 'postgres',
    spec: async () => {
      pg = await startPostgres();
      return { kind: 'postgres', url: await pg.createDatabase(), schema: 'races' };
    },
    done: async () => pg?.stop(),
    rounds: { lapse: 150, cancel: 100, ttl: 100, stale: 100 },
    jitter_us: 3_000,
  },
];

/**
 * Runs the planned rounds; where a boundary race must show both winners, keeps going (up to
 * four times as many) while one side has not won yet — a loaded machine can skew the timing.
 */
async function runRounds(planned: number, round: (i: number) => Promise<void>, bothSeen: () => boolean = () => true) {
  let i = 0;
  for (; i < planned || (!bothSeen() && i < 4 * planned); i++) await round(i);
  return i;
}

// The two backends race side by side (SQLite spends its time in the CPU, PostgreSQL mostly waiting
// on its server); within each, the scenarios run one after another on one database.
describe('predicate races', { concurrency: plans.length }, () => {
  for (const plan of plans) {
    // One scenario at a time on this backend's database and clock (concurrency is inherited otherwise).
    describe(`predicate races on ${plan.name}, two racer threads with a connection each`, { concurrency: 1 }, () => {
      let arena: Arena;
      let rounds = 0;
      before(async () => {
        arena = await openArena(plan.name, await plan.spec(), plan.jitter_us);
      });
      after(async () => {
        await arena?.close();
        await plan.done?.();
      });

      test(`at the lease boundary, A's submit or heartbeat and B's claim-next never both win; a refused A leaves no result (${plan.rounds.lapse} rounds)`, async () => {
        const tally = new Tally(`${plan.name} lease boundary, A submit|heartbeat vs B claim-next`);
        const missed = new Tally(`${plan.name} claim-next answered nothing at or after lease_until`);
        const bothWon = () => tally.count(/^tick: A won/) > 0 && tally.count(/^tick: B claimed/) > 0;
        rounds += await runRounds(plan.rounds.lapse, (i) => leaseLapseRound(arena, i, tally, missed), bothWon);
        tally.print();
        missed.print();
        assert.ok(tally.count(/^tick: A won/) > 0, 'with the clock moving mid-race, A sometimes wins');
        assert.ok(tally.count(/^tick: B claimed/) > 0, 'with the clock moving mid-race, B sometimes wins');
        // Claim-next reads its two looks (claimable? due?) from one snapshot: at or after lease_until it never
        // answers nothing while the task is requeued by another process between them (it did on SQLite once).
        assert.equal(missed.count(/./), 0, 'claim-next past lease_until claims');
      });

      test(`submit and cancel on one claimed task: exactly one wins, a cancelled task never completes and a finished one is never cancelled (${plan.rounds.cancel} rounds)`, async () => {
        const tally = new Tally(`${plan.name} A submit vs B cancel`);
        const bothWon = () => tally.count(/^live: A/) > 0 && tally.count(/^live: B cancelled/) > 0;
        rounds += await runRounds(plan.rounds.cancel, (i) => cancelRound(arena, i, tally), bothWon);
        tally.print();
        assert.ok(tally.count(/^live: A/) > 0, 'submit sometimes wins');
        assert.ok(tally.count(/^live: B cancelled/) > 0, 'cancel sometimes wins');
      });

      test(`a submit racing the ttl (B reading at expires_at) ends completed or expired, never both, never requeued (${plan.rounds.ttl} rounds)`, async () => {
        const tally = new Tally(`${plan.name} A submit vs ttl expiry on B's read`);
        const bothWon = () => tally.count(/^tick.*: completed/) > 0 && tally.count(/^tick.*: expired/) > 0;
        rounds += await runRounds(plan.rounds.ttl, (i) => ttlRound(arena, i, tally), bothWon);
        tally.print();
        assert.ok(tally.count(/^tick.*: completed/) > 0, 'with the clock moving mid-race, the submit sometimes wins');
        assert.ok(tally.count(/^tick.*: expired/) > 0, 'with the clock moving mid-race, the ttl sometimes wins');
      });

      test(`after A's lease lapsed and B claimed, A's heartbeat, release, submit and upload are all refused and B's claim is untouched (${plan.rounds.stale} rounds, two races each)`, async () => {
        const tally = new Tally(`${plan.name} stale claim of A vs B's claim-next, then vs B's heartbeat|submit`);
        const missed = new Tally(`${plan.name} claim-next answered nothing after lease_until (stale scenario)`);
        rounds += await runRounds(plan.rounds.stale, (i) => staleClaimRound(arena, i, tally, missed));
        tally.print();
        missed.print();
        // Claim-next reads its two looks (claimable? due?) from one snapshot: at or after lease_until it never
        // answers nothing while the task is requeued by another process between them (it did on SQLite once).
        assert.equal(missed.count(/./), 0, 'claim-next past lease_until claims');
      });

      test('over the whole event log: nothing after a terminal event, each claim has fence = previous + 1, never two claims without a requeue between, no ttl-race task ever requeued', async () => {
        const { figures, lives } = checkEventLog(await allEvents(arena.store));
        console.log(`# ${plan.name} event log: ${JSON.stringify(figures)}`);
        assert.equal(figures.tasks, rounds, 'one task per round');
        assert.equal(figures.ended.open ?? 0, 0, 'every round left its task terminal');
        for (const id of ttlTasks) {
          const life = lives.get(id);
          if (life) assert.equal(life.requeues, 0, `ttl-race task ${id} was requeued`);
        }
      });
    });
  }
});
