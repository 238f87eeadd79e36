/**
 * Events across daemons. Every write transaction appends its events and
 * NOTIFYs `coord_events` with its schema, last seq and (when they fit) the
 * events themselves (tx.ts); PostgreSQL delivers that only after COMMIT, in
 * commit order. Each store keeps one dedicated LISTEN connection; on a
 * notification it hands the carried events to its subscribers, or reads
 * `seq > last delivered` when they did not fit or something came before them
 * — so SSE, long-poll claims and dashboards on every daemon see writes made
 * through any daemon.
 *
 * Exactly once, in seq order: events are delivered only when their seq is
 * past `lastSeen`, and directly only when they follow it. A daemon's own
 * commit is delivered at once when it directly follows what was delivered;
 * else it is held until what comes before it arrives — by the NOTIFY of the
 * earlier commits (which, seq order being commit order, were sent before
 * ours) or by a neighbour's own commit — so a busy daemon makes no read per
 * write (issue 15: round trips per job). Only when that does not happen
 * (a seq used by a rolled-back insert, a notification too big to carry its
 * events, the LISTEN connection down) does a catch-up read fetch
 * "everything after lastSeen", which never misses a late commit.
 *
 * The LISTEN connection re-establishes itself with backoff and then catches up
 * from lastSeen, so nothing written while it was away is lost. A read-only
 * catch-up every few seconds bounds the delay even if the LISTEN connection
 * dies silently (a partition that no TCP reset reports).
 */
import pg from 'pg';
import type { CoordEvent } from '../../core/model.js';
import { type EventRow, toEvent } from '../shared/rows.js';
import type { Pool } from './database.js';
import { listEvents } from './read.js';
import { NOTIFY_CHANNEL } from './tx.js';

const PAGE = 500;
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;
const SAFETY_POLL_MS = 5_000;
/** A held commit whose predecessors' NOTIFY has not come by then is read (catch-up) instead. */
const HOLD_MS = 250;

interface Held {
  events: CoordEvent[];
  delivered: () => void;
}

export class EventFeed {
  private lastSeen: number;
  private client: pg.Client | null = null;
  private schema = '';
  private closed = false;
  private backoff = MIN_BACKOFF_MS;
  private timer: NodeJS.Timeout | undefined;
  private readonly poll: NodeJS.Timeout;
  // One catch-up read at a time; callers arriving meanwhile share the next one.
  private next: Promise<void> | null = null;
  private tail: Promise<void> = Promise.resolve();
  // This daemon's commits that came back before the commits ahead of them were delivered, by first seq.
  private readonly held = new Map<number, Held>();

  private constructor(
    private readonly config: pg.ClientConfig,
    private readonly pool: Pool,
    private readonly deliver: (events: CoordEvent[]) => void,
    lastSeq: number,
    pollMs: number,
  ) {
    this.lastSeen = lastSeq;
    this.poll = setInterval(() => this.catchUp().catch(() => {}), pollMs);
    this.poll.unref();
  }

  /** Starts listening; history before `lastSeq` is not replayed to subscribers. */
  static async start(
    config: pg.ClientConfig,
    pool: Pool,
    deliver: (events: CoordEvent[]) => void,
    lastSeq: number,
    pollMs = SAFETY_POLL_MS,
  ): Promise<EventFeed> {
    const feed = new EventFeed(config, pool, deliver, lastSeq, pollMs);
    try {
      await feed.connect();
    } catch (e) {
      await feed.close();
      throw e;
    }
    return feed;
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * This daemon's transaction committed these events (contiguous seqs, oldest first). Resolves once they are
   * delivered when they directly follow what was delivered (then at once, no read: a lone writer's subscribers
   * have heard its change when the write returns). Else others' commits come first and their NOTIFY is on its
   * way: ours are held until those are delivered — but the write does not wait for that (issue 36: the wait
   * was a wake-up of the LISTEN connection and of the daemon on every contended write's answer); order and
   * exactly-once are the feed's, not the writer's.
   */
  async committed(events: CoordEvent[]): Promise<void> {
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last || last.seq <= this.lastSeen) return;
    if (first.seq === this.lastSeen + 1) {
      this.push(events);
      return;
    }
    if (!this.listening) {
      await this.readAfterCommit();
      return;
    }
    this.held.set(first.seq, { events, delivered: () => {} });
    setTimeout(() => {
      // Its predecessors' NOTIFY has not come (a rolled-back seq, a notification too big): read them.
      if (this.held.get(first.seq)?.events !== events) return;
      this.readAfterCommit().finally(() => {
        if (this.held.get(first.seq)?.events === events) this.held.delete(first.seq);
      });
    }, HOLD_MS).unref();
  }

  private readAfterCommit(): Promise<void> {
    return this.catchUp().catch(() => {
      // The database went away after our commit; the reconnect's catch-up delivers them.
    });
  }

  catchUp(): Promise<void> {
    if (this.next) return this.next;
    const run = this.tail.then(async () => {
      this.next = null;
      for (;;) {
        const page = await listEvents(this.pool, { since: this.lastSeen, limit: PAGE });
        this.push(page);
        if (page.length < PAGE) return;
      }
    });
    this.next = run;
    this.tail = run.catch(() => {});
    return run;
  }

  /** A commit's notification (tx.ts NOTIFY_APPENDED): its events when they fit, else only its last seq. */
  private notified(payload: string): void {
    let n: { schema: string; seq: number; events?: EventRow[] };
    try {
      n = JSON.parse(payload) as typeof n;
    } catch {
      return; // Not one of ours (anyone may NOTIFY this channel): it must not crash the daemon.
    }
    // Several coord schemas may share one database; each listens to its own.
    if (n.schema !== this.schema || n.seq <= this.lastSeen) return;
    // Commits notify in commit order, which is seq order: the next batch can go straight out.
    if (n.events?.[0]?.seq === this.lastSeen + 1) this.push(n.events.map(toEvent));
    else this.catchUp().catch(() => {});
  }

  private push(events: CoordEvent[]): void {
    const fresh = events.filter((e) => e.seq > this.lastSeen);
    const last = fresh.at(-1);
    if (last) {
      this.lastSeen = last.seq;
      this.deliver(fresh);
    }
    if (this.held.size > 0) this.release();
  }

  /** Held commits that now follow what was delivered go out; those a catch-up delivered are done. */
  private release(): void {
    for (;;) {
      const next = this.held.get(this.lastSeen + 1);
      if (!next) break;
      this.held.delete(this.lastSeen + 1);
      this.lastSeen = next.events.at(-1)!.seq;
      this.deliver(next.events);
      next.delivered();
    }
    for (const [seq, h] of this.held) {
      if (h.events.at(-1)!.seq > this.lastSeen) continue;
      this.held.delete(seq);
      h.delivered();
    }
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.config);
    let gone = false;
    const lost = () => {
      if (gone) return;
      gone = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel === NOTIFY_CHANNEL && n.payload) this.notified(n.payload);
    });
    try {
      await client.connect();
      this.schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? '';
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (e) {
      gone = true;
      client.end().catch(() => {});
      throw e;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    this.backoff = MIN_BACKOFF_MS;
    // Whatever was committed while we were not listening.
    await this.catchUp().catch(() => {});
  }

  private reconnectLater(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().catch(() => {
        this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
        this.reconnectLater();
      });
    }, this.backoff);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.poll);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
    await this.tail;
    for (const h of this.held.values()) h.delivered();
    this.held.clear();
  }
}
