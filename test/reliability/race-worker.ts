/**
 * One racer: a worker thread with its own store (own connection) on the shared
 * database and the shared clock. Per round it blocks at the gate, waits its
 * jitter, runs one core operation through `invoke` (the path every transport
 * takes) — or the daemon's background sweep — and reports the outcome as a
 * value: ok with the answer, or the error code.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CoordError } from '../../src/core/errors.js';
import { invoke } from '../../src/core/invoke.js';
import type { Ctx, Operation } from '../../src/core/operation.js';
import { operations } from '../../src/core/operations.js';
import { Presence } from '../../src/core/presence.js';
import { passGate, spin } from './race-gate.js';
import type { RaceJob, RaceOutcome, RacerData } from './race-racers.js';
import { openStore } from './race-store.js';
import { SharedClock } from './shared-clock.js';

const data = workerData as RacerData;
const port = parentPort!;
const clock = new SharedClock(data.clock);
const store = await openStore(data.store, clock);
const ctx: Ctx = { store, clock, presence: new Presence() };

async function run(job: RaceJob): Promise<RaceOutcome> {
  passGate(data.gate, job.round);
  spin(job.spin_us);
  try {
    if (job.op === 'sweep') return { ok: true, value: await store.sweep() };
    return { ok: true, value: await invoke(operations[job.op] as Operation, ctx, job.input) };
  } catch (e) {
    if (e instanceof CoordError) return { ok: false, code: e.code, message: e.message };
    // Anything else (SQLITE_BUSY, a dropped connection, a bug) is a crash the test reports as such.
    return { ok: false, code: 'crash', message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

port.on('message', (msg: RaceJob | 'close') => {
  if (msg === 'close') {
    void store.close().then(() => port.close());
    return;
  }
  void run(msg).then((outcome) => port.postMessage(outcome));
});
port.postMessage('ready');
