/**
 * One store subscription shared by every open event stream. An idle SSE
 * client costs a socket and a Set entry: no timer, no query, no listener of
 * its own. The hub subscribes when the first client arrives and lets go when
 * the last one leaves; one shared timer writes the keep-alive comments.
 */
import type { CoordEvent } from '../../core/model.js';
import type { Store } from '../../core/ports.js';

export interface HubClient {
  /** Every committed batch of events, in sequence order; the client filters by board. */
  deliver(events: CoordEvent[]): void;
  keepAlive(): void;
  /** The daemon is shutting down: end the stream so the server can close. */
  end(): void;
}

export const KEEP_ALIVE_MS = 15_000;

export class EventHub {
  private readonly clients = new Set<HubClient>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** Adds a client and returns its removal; subscribing comes first so nothing committed after this is missed. */
  add(client: HubClient): () => void {
    this.clients.add(client);
    this.unsubscribe ??= this.store.subscribe(this.fanOut);
    if (!this.timer) {
      this.timer = setInterval(() => {
        for (const c of this.clients) c.keepAlive();
      }, this.keepAliveMs);
      this.timer.unref();
    }
    return () => this.remove(client);
  }

  endAll(): void {
    for (const c of [...this.clients]) c.end();
  }

  private remove(client: HubClient): void {
    if (!this.clients.delete(client) || this.clients.size > 0) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly fanOut = (events: CoordEvent[]): void => {
    // A client that throws (a socket torn down mid-write) must not starve the others.
    for (const c of this.clients) {
      try {
        c.deliver(events);
      } catch {
        c.end();
      }
    }
  };
}
