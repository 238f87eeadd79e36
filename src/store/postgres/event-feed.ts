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
 * commit is delivered at once when it directly follows what was delivered,
 * else by the same catch-up read (which includes it); its own NOTIFY then
 * finds nothing new. Because seq order is commit order (tx.ts), "everything
 * after lastSeen" never misses a late commit.
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

  private constructor(
    private readonly config: pg.ClientConfig,
    private readonly pool: Pool,
    private readonly deliver: (events: CoordEvent[]) => void,
    lastSeq: number,
  ) {
    this.lastSeen = lastSeq;
    this.poll = setInterval(() => this.catchUp().catch(() => {}), SAFETY_POLL_MS);
    this.poll.unref();
  }

  /** Starts listening; history before `lastSeq` is not replayed to subscribers. */
  static async start(
    config: pg.ClientConfig,
    pool: Pool,
    deliver: (events: CoordEvent[]) => void,
    lastSeq: number,
  ): Promise<EventFeed> {
    const feed = new EventFeed(config, pool, deliver, lastSeq);
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

  /** This daemon's transaction committed these events (contiguous seqs, oldest first). */
  async committed(events: CoordEvent[]): Promise<void> {
    const first = events[0];
    const last = events.at(-1);
    if (!first || !last || last.seq <= this.lastSeen) return;
    if (first.seq === this.lastSeen + 1) {
      this.push(events);
      return;
    }
    // Others' events (or a rolled-back seq) come first: read them, ours included, in order.
    await this.catchUp().catch(() => {
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
    const n = JSON.parse(payload) as { schema: string; seq: number; events?: EventRow[] };
    // Several coord schemas may share one database; each listens to its own.
    if (n.schema !== this.schema || n.seq <= this.lastSeen) return;
    // Commits notify in commit order, which is seq order: the next batch can go straight out.
    if (n.events?.[0]?.seq === this.lastSeen + 1) this.push(n.events.map(toEvent));
    else this.catchUp().catch(() => {});
  }

  private push(events: CoordEvent[]): void {
    const fresh = events.filter((e) => e.seq > this.lastSeen);
    const last = fresh.at(-1);
    if (!last) return;
    this.lastSeen = last.seq;
    this.deliver(fresh);
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
  }
}
