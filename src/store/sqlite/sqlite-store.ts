import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { type Clock, systemClock } from '../../core/clock.js';
import type { CoordError } from '../../core/errors.js';
import type { CoordEvent } from '../../core/model.js';
import type { EventListener, Store, StoreCapabilities } from '../../core/ports.js';
import { publishTo } from '../shared/publish.js';
import type { TaskRow } from '../shared/rows.js';
import { getArtifact, putArtifact } from './artifacts.js';
import { cancel } from './cancel.js';
import { claimNext, peekNext } from './claim.js';
import { claimWithFiles } from './claim-with-files.js';
import { createTask } from './create-task.js';
import { type Db, openDatabase } from './database.js';
import { anyDue, moveDue } from './due.js';
import { endSession } from './end-session.js';
import { heartbeat, release, submit } from './fenced.js';
import { inbox } from './inbox.js';
import {
  acquireLocks,
  anyLockLapsed,
  freeClaimLocks,
  freeLapsedLocks,
  liveLocks,
  releaseLock,
  renewLock,
} from './locks.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import { isDiskFault, storeFault } from './sqlite-errors.js';
import type { Tx } from './tx.js';

export const SQLITE_CAPABILITIES: StoreCapabilities = { crossProcessEvents: false, databaseClock: false };

export interface SqliteStoreOptions {
  path: string;
  clock?: Clock;
  /** Hears each storage fault (disk full, read-only, I/O error, …): the daemon logs the SQLite error here. */
  onFault?: (err: unknown, answer: CoordError) => void;
}

/** The embedded default store: one SQLite file, WAL, every write one BEGIN IMMEDIATE transaction. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly capabilities = SQLITE_CAPABILITIES;
  readonly db: Db;
  private readonly clock: Clock;
  private readonly path: string;
  private readonly onFault: (err: unknown, answer: CoordError) => void;
  private readonly listeners = new Set<EventListener>();

  /** The transaction body of `write`, wrapped once (better-sqlite3 builds a wrapper per `transaction()` call). */
  private readonly inTx: Database.Transaction<(tx: Tx, fn: (tx: Tx) => unknown) => unknown>;
  /** Several reads from one snapshot (a deferred transaction that only reads). */
  private readonly inSnapshot: Database.Transaction<(fn: () => unknown) => unknown>;

  constructor(opts: SqliteStoreOptions) {
    mkdirSync(dirname(opts.path), { recursive: true });
    this.db = openDatabase(opts.path);
    this.path = opts.path;
    this.onFault = opts.onFault ?? (() => {});
    this.clock = opts.clock ?? systemClock;
    this.inTx = this.db.transaction((tx: Tx, fn: (tx: Tx) => unknown) => {
      if (anyDue(this.db, tx.now)) moveDue(tx, this.claimEnded);
      return fn(tx);
    });
    this.inSnapshot = this.db.transaction((fn: () => unknown) => fn());
  }

  /** Runs inside the transaction that ends a claim. Rule 10: the claim's files are freed with it. */
  private readonly claimEnded = (tx: Tx, row: TaskRow): void => {
    freeClaimLocks(tx, row.claim_id);
  };

  /** One write transaction (BEGIN IMMEDIATE, synchronous inside); due rows move first; listeners hear after commit. */
  write<T>(fn: (tx: Tx) => T): T {
    const tx: Tx = { db: this.db, now: this.clock.now(), events: [] };
    let result: T;
    try {
      result = this.inTx.immediate(tx, fn) as T;
    } catch (e) {
      // The transaction rolled back: nothing of it is in the file, and its events were never heard.
      throw this.fault(e, true);
    }
    this.publish(tx.events);
    return result;
  }

  /** Reads that fail on the file (corrupt page, I/O error) answer store_unavailable too. */
  private read<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.fault(e, false);
    }
  }

  /** A storage fault becomes store_unavailable naming the file (and is logged); any other error is a bug. */
  private fault(e: unknown, writing: boolean): unknown {
    const answer = storeFault(e, this.path, writing);
    if (answer === null) return e;
    this.onFault(e, answer);
    return answer;
  }

  /** Before a read: the read-only due probe; the write lock is taken only when something is due. */
  private fresh(): number {
    const now = this.clock.now();
    if (!this.read(() => anyDue(this.db, now))) return now;
    try {
      this.write(() => undefined);
    } catch (e) {
      // A full or read-only disk must not take reads down with it: the due rows move at the next write
      // that can commit, and until then the read shows the last committed state (a lease_until in the past).
      if (!isDiskFault(e)) throw e;
    }
    return now;
  }

  private publish(events: CoordEvent[]): void {
    publishTo(this.listeners, events);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async createTask(cmd: Parameters<Store['createTask']>[0]) {
    return this.write((tx) => createTask(tx, cmd));
  }
  async getTask(id: string, agent?: string) {
    this.fresh();
    return this.read(() => getTask(this.db, id, agent));
  }
  async listTasks(q: Parameters<Store['listTasks']>[0]) {
    this.fresh();
    return this.read(() => listTasks(this.db, q));
  }
  async claimTask(cmd: Parameters<Store['claimTask']>[0]) {
    return this.write((tx) => claimWithFiles(tx, cmd));
  }
  async claimNext(cmd: Parameters<Store['claimNext']>[0]) {
    // Peek first (read-only), so an empty claim-next takes no write lock. The claiming
    // transaction moves due rows before it claims, so the due probe is needed out here
    // only when the peek found nothing: a lapsed lease may have something to requeue.
    // Another writer may win the candidate we peeked at; then look again.
    for (;;) {
      const now = this.clock.now();
      // Both looks from one snapshot: a requeue committed by another process between two separate reads
      // would hide the task from both (the peek saw it claimed, the probe no longer due) and answer none.
      const look = this.read(
        () =>
          this.inSnapshot.deferred(() =>
            peekNext(this.db, now, cmd) ? 'claimable' : anyDue(this.db, now) ? 'due' : 'none',
          ) as 'claimable' | 'due' | 'none',
      );
      if (look === 'claimable') {
        const grant = this.write((tx) => claimNext(tx, cmd));
        if (grant) return grant;
      } else if (look === 'due') this.write(() => undefined);
      else return null;
    }
  }
  async heartbeat(cmd: Parameters<Store['heartbeat']>[0]) {
    return this.write((tx) => heartbeat(tx, cmd));
  }
  async release(cmd: Parameters<Store['release']>[0]) {
    return this.write((tx) => release(tx, cmd, this.claimEnded));
  }
  async submit(cmd: Parameters<Store['submit']>[0]) {
    return this.write((tx) => submit(tx, cmd, this.claimEnded));
  }
  async cancel(cmd: Parameters<Store['cancel']>[0]) {
    return this.write((tx) => cancel(tx, cmd, this.claimEnded));
  }
  async putArtifact(cmd: Parameters<Store['putArtifact']>[0]) {
    return this.write((tx) => putArtifact(tx, cmd));
  }
  async getArtifact(taskId: string, artifactId: string) {
    return this.read(() => getArtifact(this.db, taskId, artifactId));
  }
  async inbox(q: Parameters<Store['inbox']>[0]) {
    const now = this.fresh();
    // Its five statements in one read transaction: one snapshot, and one read lock instead of five.
    return this.read(() => this.inSnapshot.deferred(() => inbox(this.db, now, q)) as ReturnType<typeof inbox>);
  }
  async events(q: Parameters<Store['events']>[0]) {
    return this.read(() => listEvents(this.db, q));
  }
  async activity(q: Parameters<Store['activity']>[0]) {
    const now = this.fresh();
    return this.read(() => activity(this.db, now, q));
  }
  async acquireLocks(cmd: Parameters<Store['acquireLocks']>[0]) {
    return this.write((tx) => acquireLocks(tx, cmd));
  }
  async renewLock(lockId: string, leaseMs: number | null) {
    return this.write((tx) => renewLock(tx, lockId, leaseMs));
  }
  async releaseLock(lockId: string) {
    return { released: this.write((tx) => releaseLock(tx, lockId)) };
  }
  async listLocks(board?: string) {
    return this.read(() => liveLocks(this.db, this.clock.now(), { board }));
  }
  async endSession(sessionId: string) {
    return this.write((tx) => endSession(tx, sessionId, this.claimEnded));
  }
  async sweep() {
    const tx: Tx = { db: this.db, now: this.clock.now(), events: [] };
    if (!this.read(() => anyDue(this.db, tx.now) || anyLockLapsed(this.db, tx.now))) return 0;
    let moved: number;
    try {
      moved = this.db.transaction(() => moveDue(tx, this.claimEnded) + freeLapsedLocks(tx)).immediate();
    } catch (e) {
      throw this.fault(e, true);
    }
    this.publish(tx.events);
    return moved;
  }
  async close() {
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }
}
