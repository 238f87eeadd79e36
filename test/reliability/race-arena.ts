/**
 * What every predicate-race scenario runs on: one database, the shared clock,
 * two racer threads (A and B, each with its own store) and the test thread's
 * own store for setting up and checking each round.
 */
import assert from 'node:assert/strict';
import type { z } from 'zod';
import { CoordError } from '../../src/core/errors.js';
import { invoke } from '../../src/core/invoke.js';
import type { ClaimGrant, CoordEvent } from '../../src/core/model.js';
import type { Ctx, Operation } from '../../src/core/operation.js';
import { operations as op } from '../../src/core/operations.js';
import type { Store } from '../../src/core/ports.js';
import { Presence } from '../../src/core/presence.js';
import { spin } from './race-gate.js';
import { type RaceCall, type RaceOutcome, Racers } from './race-racers.js';
import { openStore, type StoreSpec } from './race-store.js';
import { SharedClock } from './shared-clock.js';

export const A = 'agent-a';
export const B = 'agent-b';
export const POSTER = 'poster';

export interface Arena {
  name: string;
  clock: SharedClock;
  store: Store;
  racers: Racers;
  /** Largest random delay (µs) of each racer's start after the gate, and of a mid-race clock move. */
  jitter_us: number;
  call<O>(operation: Operation<z.ZodType, O>, input: unknown): Promise<O>;
  /** The error code the test thread's call fails with. */
  refused(operation: Operation, input: unknown): Promise<string>;
  close(): Promise<void>;
}

export async function openArena(name: string, spec: StoreSpec, jitter_us: number): Promise<Arena> {
  const clock = new SharedClock();
  const store = await openStore(spec, clock);
  const racers = await Racers.start(spec, clock, 2);
  const ctx: Ctx = { store, clock, presence: new Presence() };
  return {
    name,
    clock,
    store,
    racers,
    jitter_us,
    call: (operation, input) => invoke(operation, ctx, input),
    async refused(operation, input) {
      try {
        await invoke(operation, ctx, input);
      } catch (e) {
        if (e instanceof CoordError) return e.code;
        throw e;
      }
      throw new Error(`expected ${operation.name} to be refused`);
    },
    async close() {
      await racers.close();
      await store.close();
    },
  };
}

export const randomInt = (below: number): number => Math.floor(Math.random() * below);

/** A's and B's calls, each started a random few µs after the gate opens. */
export const calls = (
  arena: Arena,
  a: Omit<RaceCall, 'spin_us'>,
  b: Omit<RaceCall, 'spin_us'>,
): [RaceCall, RaceCall] => [
  { ...a, spin_us: randomInt(arena.jitter_us) },
  { ...b, spin_us: randomInt(arena.jitter_us) },
];

/** Runs one round of A against B; a racer that failed with anything but a CoordError fails the test with its stack. */
export async function race(
  arena: Arena,
  round: [RaceCall, RaceCall],
  during?: () => void,
): Promise<[RaceOutcome, RaceOutcome]> {
  const outcomes = await arena.racers.race(round, during);
  for (const [i, o] of outcomes.entries()) {
    if (!o.ok && o.code === 'crash')
      assert.fail(`racer ${i === 0 ? 'A' : 'B'} crashed in ${round[i]!.op}: ${o.message}`);
  }
  return outcomes as [RaceOutcome, RaceOutcome];
}

/** Moves the shared clock to `to` after a random part of the jitter window: mid-race. */
export const tickTo = (arena: Arena, to: number) => () => {
  spin(randomInt(arena.jitter_us));
  arena.clock.set(to);
};

/** A fresh board with one task, claimed by A; time starts well past every earlier round's leases and ttls. */
export async function claimedByA(
  arena: Arena,
  board: string,
  opts: { ttl_s?: number; lease_s: number; claim_after_ms?: number },
) {
  arena.clock.set(arena.clock.now() + 60_000);
  const { task } = await arena.call(op.createTask, {
    title: `race on ${board}`,
    board,
    agent: POSTER,
    ttl_s: opts.ttl_s,
  });
  arena.clock.advance(opts.claim_after_ms ?? 0);
  const grant = await arena.call(op.claimTask, { task_id: task.id, agent: A, lease_s: opts.lease_s });
  assert.equal(grant.fence, 1);
  return {
    task_id: task.id,
    grant,
    lease_until: Date.parse(grant.lease_until),
    expires_at: Date.parse(task.expires_at),
  };
}

export const show = async (arena: Arena, task_id: string) => (await arena.call(op.showTask, { task_id })).task;

export const grantOf = (o: RaceOutcome): ClaimGrant | null => {
  assert.ok(o.ok, `claim-next never fails, got ${o.ok ? '' : o.code}`);
  return o.value as ClaimGrant | null;
};

/** Counts each outcome of a scenario and prints them as one TAP comment line. */
export class Tally {
  readonly counts = new Map<string, number>();
  constructor(private readonly title: string) {}
  add(outcome: string): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }
  /** How many rounds ended in an outcome whose label matches. */
  count(match: RegExp): number {
    let n = 0;
    for (const [k, v] of this.counts) if (match.test(k)) n += v;
    return n;
  }
  print(): void {
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const parts = [...this.counts].sort(([x], [y]) => x.localeCompare(y)).map(([k, n]) => `${k} ${n}`);
    console.log(`# ${this.title}: ${total} iterations — ${parts.join(', ') || 'none'}`);
  }
}

/** Every event of the store, in seq order. */
export async function allEvents(store: Store): Promise<CoordEvent[]> {
  const out: CoordEvent[] = [];
  for (;;) {
    const page = await store.events({ since: out.at(-1)?.seq ?? 0, limit: 5_000 });
    out.push(...page);
    if (page.length < 5_000) return out;
  }
}
