/**
 * Group commit (SPEC §8): the daemon is the single writer of its file, so the writes that arrive
 * while a commit is being made to disk share the next transaction and its one fsync.
 *
 * better-sqlite3 is synchronous: a COMMIT (with synchronous=FULL, the fsync) blocks the event loop.
 * Requests that arrive meanwhile wait in the kernel's socket buffers; the next poll phase reads them
 * all, each reaches `enqueue`, and the flush scheduled with setImmediate (the check phase right after
 * that poll phase — no timer, so a lone write is not delayed) runs them in one
 * BEGIN IMMEDIATE … COMMIT. Each write runs in its own savepoint: a write that throws is rolled back
 * to its savepoint and answered with its own error, its neighbours commit (a lone write needs no
 * savepoint: its error rolls the transaction back). Every write is answered only after the batch's
 * COMMIT has returned, so a success still means committed.
 *
 * The writes of one batch share one instant (`now`: they commit together) and one opening step, run
 * first in the transaction — the store moves due leases and ttls there, once per batch, not per write.
 */
import type { Db } from './database.js';

export interface Write {
  /** Runs the write's statements inside the batch's transaction, at the batch's instant. */
  run(now: number, opened: Opened): void;
  /** After the batch committed (the write's own run succeeded). */
  committed(): void;
  /** The write's own error, or the batch's (BEGIN or COMMIT failed: nothing of it is in the file). */
  failed(err: unknown): void;
}

export interface GroupCommitStats {
  /** Batches committed (one COMMIT, one fsync at synchronous=FULL, each). */
  commits: number;
  /** Writes that ran in a committed batch, their own outcome success or error. */
  writes: number;
  /** The largest batch committed so far. */
  largest: number;
}

/** What the opening step of a batch did: `after` runs once the batch committed (the store publishes its events). */
export interface Opened {
  /** Rows the opening step moved (the sweep counts them). */
  moved: number;
  after(): void;
}

export class GroupCommit {
  private queue: Write[] = [];
  private scheduled = false;
  readonly stats: GroupCommitStats = { commits: 0, writes: 0, largest: 0 };
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  private readonly savepoint;
  private readonly release;
  private readonly rollbackTo;

  constructor(
    private readonly db: Db,
    private readonly clock: { now(): number },
    /** Runs first in every batch's transaction, at its instant. */
    private readonly opening: (now: number) => Opened,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT coord_write');
    this.release = db.prepare('RELEASE coord_write');
    this.rollbackTo = db.prepare('ROLLBACK TO coord_write');
  }

  /** True when a batch will run this turn anyway: a write joining it opens no write transaction of its own. */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  enqueue(w: Write): void {
    this.queue.push(w);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /** Runs every queued write in one transaction (more than one only when a failure killed it: see below). */
  readonly flush = (): void => {
    this.scheduled = false;
    let batch = this.queue;
    this.queue = [];
    while (batch.length > 0) batch = this.attempt(batch);
  };

  /** One BEGIN … COMMIT over `batch`; returns the writes to run again in a fresh transaction. */
  private attempt(batch: Write[]): Write[] {
    const started = this.start(batch);
    if (!started) return [];
    const { now, opened } = started;
    const errors = new Map<Write, unknown>();
    const rerun = batch.length === 1 ? this.runAlone(batch[0]!, now, opened) : this.runEach(batch, now, opened, errors);
    if (rerun) return rerun;
    try {
      this.commit.run();
    } catch (e) {
      this.abandon();
      for (const w of batch) w.failed(errors.has(w) ? errors.get(w) : e);
      return [];
    }
    this.stats.commits++;
    this.stats.writes += batch.length;
    this.stats.largest = Math.max(this.stats.largest, batch.length);
    opened.after();
    for (const w of batch) {
      if (errors.has(w)) w.failed(errors.get(w));
      else w.committed();
    }
    return [];
  }

  /** BEGIN and the opening step; null (every write of the batch answered with the error) when either fails. */
  private start(batch: Write[]): { now: number; opened: Opened } | null {
    if (!this.db.open) return failAll(batch, new TypeError('The database connection is not open'));
    try {
      this.begin.run();
    } catch (e) {
      return failAll(batch, e);
    }
    const now = this.clock.now();
    try {
      return { now, opened: this.opening(now) };
    } catch (e) {
      this.abandon();
      return failAll(batch, e);
    }
  }

  /** Alone: no savepoint; its error rolls the whole transaction back (then [] — it is answered — else null). */
  private runAlone(w: Write, now: number, opened: Opened): Write[] | null {
    try {
      w.run(now, opened);
      return null;
    } catch (e) {
      this.abandon();
      w.failed(e);
      return [];
    }
  }

  /**
   * Each write in its own savepoint, its error kept in `errors` and its changes undone; null when the
   * transaction survived them all, else the writes to run again in a fresh one.
   */
  private runEach(batch: Write[], now: number, opened: Opened, errors: Map<Write, unknown>): Write[] | null {
    for (const [i, w] of batch.entries()) {
      try {
        this.savepoint.run();
        w.run(now, opened);
        this.release.run();
      } catch (e) {
        errors.set(w, e);
        // Some errors (disk full, I/O error) make SQLite roll the whole transaction back, not just the
        // write's savepoint. The writes before it are gone with it: answer this one, run the others again.
        if (!this.db.inTransaction) {
          w.failed(e);
          return batch.filter((_, j) => j !== i);
        }
        try {
          this.rollbackTo.run();
          this.release.run();
        } catch {
          // The savepoint could not be undone: start the batch again without this write.
          this.abandon();
          w.failed(e);
          return batch.filter((_, j) => j !== i);
        }
      }
    }
    return null;
  }

  /** Rolls back whatever of the transaction is left (nothing, when SQLite already did). */
  private abandon(): void {
    try {
      if (this.db.inTransaction) this.rollback.run();
    } catch {
      // Nothing more can be undone; the next BEGIN starts clean or fails on its own.
    }
  }
}

/** Answers every write of a batch that never ran with the error that stopped it. */
function failAll(batch: Write[], e: unknown): null {
  for (const w of batch) w.failed(e);
  return null;
}
