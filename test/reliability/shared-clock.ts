/**
 * A Clock that every thread reads from one SharedArrayBuffer: the test thread
 * moves time, each worker's store sees the move at its next `now()`. Lets a
 * race be put exactly on a lease or ttl boundary, even mid-race.
 */
import type { Clock } from '../../src/core/shared/clock.js';

export class SharedClock implements Clock {
  private readonly ms: BigInt64Array;

  /** A new clock at `start`, or a view of another thread's clock when given its buffer. */
  constructor(from: number | SharedArrayBuffer = Date.UTC(2026, 0, 1)) {
    const buffer = typeof from === 'number' ? new SharedArrayBuffer(8) : from;
    this.ms = new BigInt64Array(buffer);
    if (typeof from === 'number') this.set(from);
  }

  /** Pass this to a worker (workerData); it builds its own SharedClock on it. */
  get buffer(): SharedArrayBuffer {
    return this.ms.buffer as SharedArrayBuffer;
  }

  now(): number {
    return Number(Atomics.load(this.ms, 0));
  }

  set(ms: number): void {
    if (!Number.isSafeInteger(ms)) throw new Error(`bad clock value ${ms}`);
    Atomics.store(this.ms, 0, BigInt(ms));
  }

  advance(ms: number): void {
    this.set(this.now() + ms);
  }
}
