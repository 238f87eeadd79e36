/**
 * A starting gate over a SharedArrayBuffer: every racer of a round blocks at
 * the gate until all have arrived and the test thread opens it, so their calls
 * start at one instant instead of one message latency apart.
 */
const ARRIVED = 0;
const OPEN = 1;
const GATE_TIMEOUT_MS = 30_000;

export const newGate = (): SharedArrayBuffer => new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);

/** Racer side: arrive for `round` (1, 2, …) and block until the gate opens for it. */
export function passGate(buffer: SharedArrayBuffer, round: number): void {
  const g = new Int32Array(buffer);
  Atomics.add(g, ARRIVED, 1);
  Atomics.notify(g, ARRIVED);
  const until = Date.now() + GATE_TIMEOUT_MS;
  for (let open = Atomics.load(g, OPEN); open < round; open = Atomics.load(g, OPEN)) {
    if (Date.now() > until) throw new Error(`gate for round ${round} never opened`);
    Atomics.wait(g, OPEN, open, 1_000);
  }
}

/** Test side: block until `arrivals` racers in total have arrived, then open the gate for `round`. */
export function openGate(buffer: SharedArrayBuffer, round: number, arrivals: number): void {
  const g = new Int32Array(buffer);
  const until = Date.now() + GATE_TIMEOUT_MS;
  for (let n = Atomics.load(g, ARRIVED); n < arrivals; n = Atomics.load(g, ARRIVED)) {
    if (Date.now() > until) throw new Error(`only ${n} of ${arrivals} racers reached the gate of round ${round}`);
    Atomics.wait(g, ARRIVED, n, 1_000);
  }
  Atomics.store(g, OPEN, round);
  Atomics.notify(g, OPEN);
}

/** Busy-waits `us` microseconds: a jitter that moves one racer's start against the other's. */
export function spin(us: number): void {
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // spinning on purpose: a timer cannot wait a few microseconds
  }
}
