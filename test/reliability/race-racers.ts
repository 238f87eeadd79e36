/**
 * The test thread's side of the racers: starts one worker thread per racer,
 * and per round hands each its call, opens the gate once all are there, and
 * collects what each got. `during` runs on the test thread right after the
 * gate opens — it moves the shared clock mid-race.
 */
import { Worker } from 'node:worker_threads';
import type { Operations } from '../../src/core/operations.js';
import { newGate, openGate } from './race-gate.js';
import type { StoreSpec } from './race-store.js';
import type { SharedClock } from './shared-clock.js';

export interface RacerData {
  store: StoreSpec;
  clock: SharedArrayBuffer;
  gate: SharedArrayBuffer;
}

export interface RaceCall {
  /** A core operation, or `sweep`: the daemon's background move of due leases and ttls. */
  op: keyof Operations | 'sweep';
  input: unknown;
  /** Busy-wait this long after the gate opens, before calling. */
  spin_us: number;
}

export type RaceJob = RaceCall & { round: number };

export type RaceOutcome = { ok: true; value: unknown } | { ok: false; code: string; message: string };

const WORKER = new URL('./race-worker.ts', import.meta.url).href;
// Worker threads do not apply the parent's `--import tsx` hooks to their entry module
// (Node 20), so each worker registers tsx itself before importing the .ts racer.
const BOOT = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER)}); })`;

interface Racer {
  worker: Worker;
  next(): Promise<unknown>;
  exited: Promise<void>;
}

function startRacer(data: RacerData): Racer {
  const worker = new Worker(BOOT, { eval: true, workerData: data });
  const inbox: unknown[] = [];
  const waiting: { resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  let failure: unknown;
  worker.on('message', (m) => {
    const w = waiting.shift();
    if (w) w.resolve(m);
    else inbox.push(m);
  });
  const fail = (e: unknown) => {
    failure = e;
    for (const w of waiting.splice(0)) w.reject(e);
  };
  worker.on('error', fail);
  const exited = new Promise<void>((resolve) =>
    worker.on('exit', (code) => {
      fail(new Error(`racer thread exited (${code})`));
      resolve();
    }),
  );
  return {
    worker,
    exited,
    next: () =>
      inbox.length > 0
        ? Promise.resolve(inbox.shift())
        : failure
          ? Promise.reject(failure)
          : new Promise((resolve, reject) => waiting.push({ resolve, reject })),
  };
}

export class Racers {
  private round = 0;
  private constructor(
    private readonly racers: Racer[],
    private readonly gate: SharedArrayBuffer,
  ) {}

  static async start(store: StoreSpec, clock: SharedClock, count: number): Promise<Racers> {
    const gate = newGate();
    const racers = Array.from({ length: count }, () => startRacer({ store, clock: clock.buffer, gate }));
    for (const r of racers) {
      const hello = await r.next();
      if (hello !== 'ready') throw new Error(`racer said ${JSON.stringify(hello)} instead of ready`);
    }
    return new Racers(racers, gate);
  }

  /** Racer i makes calls[i]; all start together. Resolves with each one's outcome, in order. */
  async race(calls: RaceCall[], during: () => void = () => {}): Promise<RaceOutcome[]> {
    if (calls.length !== this.racers.length) throw new Error(`${calls.length} calls for ${this.racers.length} racers`);
    const round = ++this.round;
    const answers = this.racers.map((r, i) => {
      r.worker.postMessage({ ...calls[i]!, round } satisfies RaceJob);
      return r.next() as Promise<RaceOutcome>;
    });
    openGate(this.gate, round, round * this.racers.length);
    during();
    return Promise.all(answers);
  }

  async close(): Promise<void> {
    for (const r of this.racers) r.worker.postMessage('close');
    await Promise.all(this.racers.map((r) => r.exited));
  }
}
