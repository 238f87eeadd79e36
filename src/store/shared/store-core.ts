/**
 * What both stores' cores (`<store>/store-core.ts`) share: the listeners that hear each committed batch of
 * events, and lazy expiry before a read (SPEC §2): a read-only probe, and a write only when something is due.
 */
import type { CoordEvent } from '../../core/model.js';
import type { EventListener } from '../../core/ports.js';
import { publishTo } from './publish.js';

export abstract class StoreCore {
  readonly listeners = new Set<EventListener>();

  /** Hands a committed batch's events to the listeners. */
  readonly publish = (events: CoordEvent[]): void => publishTo(this.listeners, events);

  /** Now, and whether a lease or ttl is due at it: a read-only probe. */
  protected abstract probeDue(): Promise<{ now: number; due: boolean }>;

  /** An empty write: it moves what is due (every write transaction moves due rows first). */
  protected abstract emptyWrite(): Promise<unknown>;

  /** Whether a read still answers when moving what is due failed with `e` (it shows the last committed state). */
  protected readonly readsOutlast: (e: unknown) => boolean = () => false;

  /** The store's connections (or file) close, once no listener hears anything any more. */
  protected abstract release(): Promise<void>;

  /** Moves what is due now. */
  async moveDueNow(): Promise<void> {
    try {
      await this.emptyWrite();
    } catch (e) {
      if (!this.readsOutlast(e)) throw e;
    }
  }

  /** Before a read: the probe; the write lock is taken only when something is due. Returns the probe's now. */
  async fresh(): Promise<number> {
    const probe = await this.probeDue();
    if (probe.due) await this.moveDueNow();
    return probe.now;
  }

  /** A read after lazy expiry (`fresh`), at the probe's now. */
  async freshly<T>(read: (now: number) => T | Promise<T>): Promise<T> {
    return read(await this.fresh());
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.release();
  }
}
