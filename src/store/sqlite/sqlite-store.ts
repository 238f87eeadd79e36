import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { type Clock, systemClock } from '../../core/clock.js';
import type { Connectors } from '../../core/connector-ports.js';
import { isReadOnly } from '../../core/edit-decision.js';
import type { CoordError } from '../../core/errors.js';
import type { IntegrationStore } from '../../core/integration-ports.js';
import type { NotesAndMessages } from '../../core/message-ports.js';
import type { CoordEvent } from '../../core/model.js';
import type { EventListener, Store, StoreCapabilities, SubmitOutcome } from '../../core/ports.js';
import type { WorktreeStore } from '../../core/worktree-ports.js';
import { answerOf } from '../shared/edit-answer.js';
import { integrationOf } from '../shared/integration-rows.js';
import { publishTo } from '../shared/publish.js';
import type { TaskRow } from '../shared/rows.js';
import { getArtifact, listArtifacts, putArtifact } from './artifacts.js';
import { cancel } from './cancel.js';
import { claimNext, peekNext } from './claim.js';
import { claimWithFiles } from './claim-with-files.js';
import { connectorsPort } from './connectors-port.js';
import { createTask } from './create-task.js';
import { type Db, type Durability, openDatabase } from './database.js';
import { decideEdit, peekEdit } from './decide-edit.js';
import { createPlan, setDeps, taskStates } from './deps.js';
import { anyDue, moveDue } from './due.js';
import { endSession } from './end-session.js';
import { heartbeat, release, submit } from './fenced.js';
import { GroupCommit, type GroupCommitStats } from './group-commit.js';
import { holdAtSubmit } from './holds.js';
import { EmptyInboxes, inbox, quickInbox } from './inbox.js';
import { queueIntegration } from './integration.js';
import { integrationPort } from './integration-port.js';
import {
  acquireLocks,
  anyLockLapsed,
  freeClaimLocks,
  freeLapsedLocks,
  liveLocks,
  releaseLock,
  renewLock,
} from './locks.js';
import { messagesPort } from './messages-port.js';
import { withNote } from './notes.js';
import { activity, getTask, listEvents, listTasks } from './read.js';
import { isDiskFault, storeFault } from './sqlite-errors.js';
import type { SqliteCore } from './store-core.js';
import { stmt, type Tx } from './tx.js';
import { worktreesPort } from './worktrees-port.js';

export const SQLITE_CAPABILITIES: StoreCapabilities = { crossProcessEvents: false, databaseClock: false };

export interface SqliteStoreOptions {
  path: string;
  clock?: Clock;
  /** Hears each storage fault (disk full, read-only, I/O error, …): the daemon logs the SQLite error here. */
  onFault?: (err: unknown, answer: CoordError) => void;
  /** 'full' (default): a commit survives power loss (synchronous=FULL); 'normal': only a crash of the process. */
  durability?: Durability;
}

/**
 * The ports the store is composed of beside its tasks, claims, locks and events (as core/ports.ts composes
 * Store): each is built in the constructor from its own file over the store's core (store-core.ts) — a port
 * object typed by its interface, so a method missing there fails to compile there.
 */
export interface SqliteStore extends IntegrationStore, Connectors, WorktreeStore, NotesAndMessages {}

/**
 * The embedded default store: one SQLite file, WAL, durable by default. Writes are group-committed
 * (group-commit.ts): those that arrive together share one BEGIN IMMEDIATE … COMMIT, each in its own savepoint.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface's members are the port objects assigned in the constructor
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly capabilities = SQLITE_CAPABILITIES;
  readonly db: Db;
  readonly durability: Durability;
  private readonly group: GroupCommit;
  private readonly clock: Clock;
  private readonly path: string;
  private readonly onFault: (err: unknown, answer: CoordError) => void;
  private readonly listeners = new Set<EventListener>();

  /** Several reads from one snapshot (a deferred transaction that only reads). */
  private readonly inSnapshot: Database.Transaction<(fn: () => unknown) => unknown>;
  private readonly emptyInboxes: EmptyInboxes;

  constructor(opts: SqliteStoreOptions) {
    mkdirSync(dirname(opts.path), { recursive: true });
    this.durability = opts.durability ?? 'full';
    this.db = openDatabase(opts.path, this.durability);
    this.clock = opts.clock ?? systemClock;
    // Each batch moves due rows first (lazy expiry, SPEC §2), once for all its writes; their events are heard
    // once the batch committed.
    this.group = new GroupCommit(this.db, this.clock, (now) => {
      const tx: Tx = { db: this.db, now, events: [] };
      const moved = anyDue(this.db, now) ? moveDue(tx, this.claimEnded) : 0;
      return { moved, after: () => this.publish(tx.events) };
    });
    this.path = opts.path;
    this.onFault = opts.onFault ?? (() => {});
    this.inSnapshot = this.db.transaction((fn: () => unknown) => fn());
    this.emptyInboxes = new EmptyInboxes(this.db);
    const core: SqliteCore = {
      db: this.db,
      clock: this.clock,
      write: (fn) => this.write(fn),
      read: (fn) => this.read(fn),
      claimEnded: this.claimEnded,
    };
    Object.assign(this, integrationPort(core), connectorsPort(core), worktreesPort(core), messagesPort(core));
  }

  /** Runs inside the transaction that ends a claim. Rule 10: the claim's files are freed with it. */
  private readonly claimEnded = (tx: Tx, row: TaskRow): void => {
    freeClaimLocks(tx, row.claim_id);
  };

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
          tx = { db: this.db, now, events: [], dueMoved: opened.moved };
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

  /** Batches committed and writes answered so far (tests count commits with it). */
  get commitStats(): Readonly<GroupCommitStats> {
    return this.group.stats;
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
  private async fresh(): Promise<number> {
    const now = this.clock.now();
    if (!this.read(() => anyDue(this.db, now))) return now;
    await this.moveDueNow();
    return now;
  }

  private async moveDueNow(): Promise<void> {
    try {
      await this.write(() => undefined);
    } catch (e) {
      // A full or read-only disk must not take reads down with it: the due rows move at the next write
      // that can commit, and until then the read shows the last committed state (a lease_until in the past).
      if (!isDiskFault(e)) throw e;
    }
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
    await this.fresh();
    return this.read(() => getTask(this.db, id, agent));
  }
  async listTasks(q: Parameters<Store['listTasks']>[0]) {
    await this.fresh();
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
    // Under load a batch is already queued for this turn: join it without the peek. The claim then looks inside
    // the batch's transaction (due rows already moved), and an empty answer opens no write transaction of its own.
    if (this.group.pending) return this.write((tx) => claimNext(tx, cmd));
    for (;;) {
      const now = this.clock.now();
      // The common case first: one read-only statement finds a candidate. Only when it finds none are both
      // looks taken from one snapshot: a requeue committed by another process between two separate reads
      // would hide the task from both (the peek saw it claimed, the probe no longer due) and answer none.
      // A task id to claim, or why there is none.
      const look = this.read((): string | { none: 'due' | 'empty' } => {
        const id = peekNext(this.db, now, cmd);
        if (id !== null) return id;
        return this.inSnapshot.deferred(
          () => peekNext(this.db, now, cmd) ?? { none: anyDue(this.db, now) ? 'due' : 'empty' },
        ) as string | { none: 'due' | 'empty' };
      });
      if (typeof look !== 'string') {
        if (look.none === 'empty') return null;
        await this.write(() => undefined);
      } else {
        const grant = await this.write((tx) => claimNext(tx, cmd, look));
        if (grant) return grant;
      }
    }
  }
  async heartbeat(cmd: Parameters<Store['heartbeat']>[0]) {
    return this.write((tx) => heartbeat(tx, cmd));
  }
  async release(cmd: Parameters<Store['release']>[0]) {
    return this.write((tx) => {
      const holder = cmd.note ? holderOf(tx, cmd.task_id, cmd.claim_id) : null;
      return withNote(tx, release(tx, cmd, this.claimEnded), cmd.note, holder, 'release', true);
    });
  }
  async submit(cmd: Parameters<Store['submit']>[0]) {
    return this.write((tx): SubmitOutcome => {
      const out = submit(tx, cmd, this.claimEnded);
      if (!out.ok && out.reason === 'work_tree') return out;
      if (out.ok && !out.replayed && cmd.hold)
        holdAtSubmit(tx, { ...cmd.hold, board: out.task.board, task_id: cmd.task_id });
      // SPEC §15: completed work with commits enters the integration queue in the same transaction.
      const queued = out.ok && !out.replayed ? integrationOf(cmd) : null;
      if (queued) queueIntegration(tx, queued);
      const noted = withNote(tx, out, cmd.note, out.ok ? out.task.claimed_by : null, 'submit', out.ok && !out.replayed);
      return noted.ok ? { ...noted, ended_locks: (tx.endedLocks ?? 0) > 0 } : noted;
    });
  }
  async cancel(cmd: Parameters<Store['cancel']>[0]) {
    return this.write((tx) => {
      const open = cmd.note ? isOpen(tx, cmd.task_id) : false;
      return withNote(tx, cancel(tx, cmd, this.claimEnded), cmd.note, cmd.agent, 'cancel', open);
    });
  }
  async putArtifact(cmd: Parameters<Store['putArtifact']>[0]) {
    return this.write((tx) => putArtifact(tx, cmd));
  }
  async getArtifact(taskId: string, artifactId: string) {
    return this.read(() => getArtifact(this.db, taskId, artifactId));
  }
  async listArtifacts(taskId: string) {
    return this.read(() => listArtifacts(this.db, taskId));
  }
  async inbox(q: Parameters<Store['inbox']>[0]) {
    // Most polls find nothing: one statement says so (and whether anything is due, or mail is waiting), and the
    // answer is kept until the file changes or something falls due.
    const now = this.clock.now();
    const kept = this.read(() => this.emptyInboxes.get(q, now));
    if (kept) return kept;
    let quick = this.read(() => quickInbox(this.db, now, q));
    if (quick === 'due') {
      await this.moveDueNow();
      // Still due after this: the disk refused the move; the look below reads the last committed state.
      quick = this.read(() => quickInbox(this.db, now, q));
    } else if (quick.view) this.emptyInboxes.put(q, quick);
    if (quick !== 'due' && quick.view) return { ...quick.view, mail: quick.mail };
    // The full look's statements in one read transaction: one snapshot, and one read lock.
    const view = this.read(() => this.inSnapshot.deferred(() => inbox(this.db, now, q)) as ReturnType<typeof inbox>);
    return quick === 'due' ? view : { ...view, mail: quick.mail };
  }
  async events(q: Parameters<Store['events']>[0]) {
    return this.read(() => listEvents(this.db, q));
  }
  async activity(q: Parameters<Store['activity']>[0]) {
    const now = await this.fresh();
    return this.read(() => activity(this.db, now, q));
  }
  async acquireLocks(cmd: Parameters<Store['acquireLocks']>[0]) {
    return this.write((tx) => acquireLocks(tx, cmd));
  }
  async decideEdit(cmd: Parameters<Store['decideEdit']>[0]) {
    const now = this.clock.now();
    const look = this.read(() => peekEdit(this.db, now, cmd));
    if (isReadOnly(look)) return answerOf(look);
    return this.write((tx) => decideEdit(tx, cmd));
  }
  async renewLock(lockId: string, leaseMs: number | null) {
    return this.write((tx) => renewLock(tx, lockId, leaseMs));
  }
  async releaseLock(lockId: string) {
    return { released: await this.write((tx) => releaseLock(tx, lockId)) };
  }
  async listLocks(board?: string) {
    return this.read(() => liveLocks(this.db, this.clock.now(), { board }));
  }
  async endSession(sessionId: string) {
    return this.write((tx) => endSession(tx, sessionId, this.claimEnded));
  }
  async sweep() {
    const now = this.clock.now();
    if (!this.read(() => anyDue(this.db, now) || anyLockLapsed(this.db, now))) return 0;
    // The batch moved the due tasks before this write ran (dueMoved); nothing is left for moveDue here.
    return this.write((tx) => (tx.dueMoved ?? 0) + moveDue(tx, this.claimEnded) + freeLapsedLocks(tx));
  }
  async setDeps(cmd: Parameters<Store['setDeps']>[0]) {
    return this.write((tx) => setDeps(tx, cmd));
  }
  async createPlan(cmd: Parameters<Store['createPlan']>[0]) {
    return this.write((tx) => createPlan(tx, cmd));
  }
  async taskStates(ids: string[]) {
    return this.read(() => taskStates(this.db, ids));
  }
  async close() {
    // Writes already queued are committed (or answered with their error) before the file closes.
    if (this.db.open) this.group.flush();
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }
}

/** The agent whose claim this is (a claim_id names one claim of one agent), for a release's note. */
const holderOf = (tx: Tx, taskId: string, claimId: string): string | null =>
  (
    stmt(tx.db, 'SELECT claimed_by FROM tasks WHERE id = ? AND claim_id = ?').get(taskId, claimId) as
      | { claimed_by: string | null }
      | undefined
  )?.claimed_by ?? null;

/** Whether a cancel would change the task (a second cancel writes no second note). */
const isOpen = (tx: Tx, taskId: string): boolean =>
  (stmt(tx.db, 'SELECT state FROM tasks WHERE id = ?').get(taskId) as { state: string } | undefined)?.state.match(
    /^(queued|claimed)$/,
  ) !== null;
