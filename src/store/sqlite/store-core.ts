/**
 * What every port of the SQLite store (tasks-port.ts, claims-port.ts, and the shared programs' runners, shared/composed-store.ts …)
 * needs of the store: the file, the clock, and how to read and write. Writes are group-committed
 * (group-commit.ts): those that arrive together share one BEGIN IMMEDIATE … COMMIT, each in its own savepoint.
 * SqliteStore (sqlite-store.ts) composes the ports into the Store as core/ports.ts composes its interface.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { CoordError } from '../../core/errors.js';
import { type Clock, systemClock } from '../../core/shared/clock.js';
import type { Prog } from '../shared/program.js';
import { StoreCore } from '../shared/store-core.js';
import { type Db, type Durability, openDatabase } from './database.js';
import { anyDue, moveDue } from './due.js';
import { GroupCommit, type GroupCommitStats } from './group-commit.js';
import { EmptyInboxes } from './inbox.js';
import { LOCKS_SQL } from './locks.js';
import { runSync } from './runner.js';
import { isDiskFault, storeFault } from './sqlite-errors.js';
import type { Tx } from './tx.js';

export interface SqliteStoreOptions {
  path: string;
  clock?: Clock;
  /** Hears each storage fault (disk full, read-only, I/O error, …): the daemon logs the SQLite error here. */
  onFault?: (err: unknown, answer: CoordError) => void;
  /** 'full' (default): a commit survives power loss (synchronous=FULL); 'normal': only a crash of the process. */
  durability?: Durability;
}

export class SqliteCore extends StoreCore {
  readonly db: Db;
  readonly clock: Clock;
  readonly durability: Durability;
  /** Empty inbox answers kept until the file changes or something falls due (inbox.ts). */
  readonly emptyInboxes: EmptyInboxes;
  private readonly group: GroupCommit;
  private readonly path: string;
  private readonly onFault: (err: unknown, answer: CoordError) => void;
  private readonly inSnapshot: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(opts: SqliteStoreOptions) {
    super();
    mkdirSync(dirname(opts.path), { recursive: true });
    this.durability = opts.durability ?? 'full';
    this.db = openDatabase(opts.path, this.durability);
    this.clock = opts.clock ?? systemClock;
    // Each batch moves due rows first (lazy expiry, SPEC §2), once for all its writes; their events are heard
    // once the batch committed.
    this.group = new GroupCommit(this.db, this.clock, (now) => {
      const tx: Tx = { db: this.db, now, events: [], moved: 0 };
      const moved = anyDue(this.db, now) ? moveDue(tx, LOCKS_SQL) : 0;
      return { moved, after: () => this.publish(tx.events) };
    });
    this.path = opts.path;
    this.onFault = opts.onFault ?? (() => {});
    this.inSnapshot = this.db.transaction((fn: () => unknown) => fn());
    this.emptyInboxes = new EmptyInboxes(this.db);
  }

  /**
   * One write: its statements run in the next group commit (group-commit.ts), due rows moved first;
   * it resolves once that batch's COMMIT returned (listeners hear then), or rejects with its own error.
   */
  write<T>(fn: (tx: Tx) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let tx: Tx;
      let result: T;
      this.group.enqueue({
        run: (now, opened) => {
          tx = { db: this.db, now, events: [], moved: opened.moved };
          result = fn(tx);
        },
        committed: () => {
          this.publish(tx.events);
          resolve(result);
        },
        // Rolled back: nothing of it is in the file, and its events were never heard.
        failed: (e) => reject(this.fault(e, true)),
      });
    });
  }

  /** Whether a batch is already queued for this turn (a write joins it at no extra commit). */
  get batchPending(): boolean {
    return this.group.pending;
  }

  /** Batches committed and writes answered so far (tests count commits with it). */
  get commitStats(): Readonly<GroupCommitStats> {
    return this.group.stats;
  }

  /** A read; a storage fault (corrupt page, I/O error) answers store_unavailable. */
  read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.fault(e, false);
    }
  }

  /** A program that only reads (shared/program.ts), in the caller's turn. */
  readProgram = async <T>(prog: Prog<T>): Promise<T> => this.read(() => runSync(prog, this.db));

  /** Now, for a read that needs it: the clock's. */
  now = async (): Promise<number> => this.clock.now();

  /** Several reads from one snapshot (a deferred transaction that only reads). */
  snapshot<T>(fn: () => T): T {
    return this.inSnapshot.deferred(fn) as T;
  }

  /** A storage fault becomes store_unavailable naming the file (and is logged); any other error is a bug. */
  private fault(e: unknown, writing: boolean): unknown {
    const answer = storeFault(e, this.path, writing);
    if (answer === null) return e;
    this.onFault(e, answer);
    return answer;
  }

  protected async probeDue(): Promise<{ now: number; due: boolean }> {
    const now = this.clock.now();
    return { now, due: this.read(() => anyDue(this.db, now)) };
  }

  protected emptyWrite = () => this.write(() => undefined);

  // A full or read-only disk must not take reads down with it: the due rows move at the next write
  // that can commit, and until then the read shows the last committed state (a lease_until in the past).
  protected override readonly readsOutlast = isDiskFault;

  override async close(): Promise<void> {
    // Writes already queued are committed (or answered with their error) before the file closes.
    if (this.db.open) this.group.flush();
    await super.close();
  }

  protected async release(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
