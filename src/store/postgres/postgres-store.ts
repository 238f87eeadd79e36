import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Connectors } from '../../core/connector-ports.js';
import { isReadOnly } from '../../core/edit-decision.js';
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
import { claimWithFiles } from './claim-with-files.js';
import { connectorsPort } from './connectors-port.js';
import { createTask } from './create-task.js';
import {
  type ConnectionOptions,
  clientConfig,
  makePool,
  migrate,
  type Pool,
  type Queryable,
  type QueryStats,
  queryStats,
} from './database.js';
import { decideEdit, peekEdit } from './decide-edit.js';
import { createPlan, setDeps, taskStates } from './deps.js';
import { DB_NOW, moveDue, type Probe, probeSql, sweepProbeSql } from './due.js';
import { endSession } from './end-session.js';
import { EventFeed } from './event-feed.js';
import { heartbeat, release, submit } from './fenced.js';
import { holdAtSubmit } from './holds.js';
import { inbox } from './inbox.js';
import { queueIntegration } from './integration.js';
import { integrationPort } from './integration-port.js';
import { acquireLocks, freeClaimLocks, freeLapsedLocks, liveLocks, releaseLock, renewLock } from './locks.js';
import { messagesPort } from './messages-port.js';
import { withNote } from './notes.js';
import { claimNextOne, claimOne, submitOne } from './one-trip.js';
import { guarded, isConnectionError, isRetryable } from './pg-errors.js';
import { activity, getTask, lastSeq, listEvents, listTasks } from './read.js';
import { row } from './sql.js';
import type { PostgresCore } from './store-core.js';
import { commit, type Tx } from './tx.js';
import { worktreesPort } from './worktrees-port.js';

export const POSTGRES_CAPABILITIES: StoreCapabilities = { crossProcessEvents: true, databaseClock: true };

export interface PostgresStoreOptions extends ConnectionOptions {
  /** Tests only: drive time by hand instead of the database clock. */
  clock?: Clock | undefined;
  /** Tests only: the event feed's safety catch-up interval (default 5 s; event-feed.ts). */
  eventPollMs?: number | undefined;
}

const RETRIES = 5;

/**
 * The ports the store is composed of beside its tasks, claims, locks and events (as core/ports.ts composes
 * Store): each is built in the constructor from its own file over the store's core (store-core.ts) — a port
 * object typed by its interface, so a method missing there fails to compile there.
 */
export interface PostgresStore extends IntegrationStore, Connectors, WorktreeStore, NotesAndMessages {}

/**
 * The store for teams: several daemons on several machines share one
 * PostgreSQL database. Every operation is one transaction (READ COMMITTED);
 * every winning write is one conditional statement; time is the database's.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface's members are the port objects assigned in the constructor
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly capabilities: StoreCapabilities;
  private readonly listeners = new Set<EventListener>();
  private feed: EventFeed | undefined;

  private constructor(
    readonly pool: Pool,
    private readonly clock: Clock | undefined,
  ) {
    this.capabilities = { ...POSTGRES_CAPABILITIES, databaseClock: clock === undefined };
    const core: PostgresCore = {
      pool,
      write: (fn) => this.write(fn),
      now: () => this.now(),
      clockNow: () => this.clockNow(),
    };
    Object.assign(this, integrationPort(core), connectorsPort(core), worktreesPort(core), messagesPort(core));
  }

  /** Connects, migrates (safe when several daemons start at once) and starts listening for events. */
  static async open(opts: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = makePool(opts);
    try {
      return await guarded(async () => {
        await migrate(pool, opts.schema);
        const store = new PostgresStore(pool, opts.clock);
        store.feed = await EventFeed.start(
          clientConfig(opts),
          pool,
          store.publish,
          await lastSeq(pool),
          opts.eventPollMs,
        );
        return store;
      }, 'start it, or check the --store URL');
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
  }

  private readonly publish = (events: CoordEvent[]): void => publishTo(this.listeners, events);

  /** Round trips to the database so far (/v1/health; the bench divides them by jobs). */
  get queryStats(): Readonly<QueryStats> {
    return queryStats(this.pool);
  }

  /** Runs inside the transaction that ends a claim. Rule 10: the claim's files are freed with it. */
  private readonly claimEnded = async (tx: Tx, r: TaskRow): Promise<void> => {
    await freeClaimLocks(tx, r.claim_id);
  };

  /** The injected clock's time, or null: take it from the database. */
  private clockNow(): number | null {
    return this.clock ? this.clock.now() : null;
  }

  /**
   * One write transaction: BEGIN and the due probe share a round trip, due rows
   * move first, then `fn`, then the events, COMMIT, and delivery to subscribers.
   * A deadlock or serialization failure did nothing and runs again.
   */
  async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return guarded(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const { result, events } = await this.attempt(fn);
          await this.feed?.committed(events);
          return result;
        } catch (e) {
          if (!isRetryable(e) || attempt >= RETRIES) throw e;
        }
      }
    });
  }

  private async attempt<T>(fn: (tx: Tx) => Promise<T>): Promise<{ result: T; events: CoordEvent[] }> {
    const client = await this.pool.connect();
    let broken: Error | boolean | undefined;
    try {
      const probe = await begin(client, 'BEGIN', this.clockNow());
      const tx: Tx = { db: client, now: probe.now, pending: [], moved: 0 };
      if (probe.due) tx.moved = await moveDue(tx, this.claimEnded);
      const result = await fn(tx);
      return { result, events: await commit(tx) };
    } catch (e) {
      broken = isConnectionError(e) ? (e as Error) : await rollback(client);
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** Now, without looking for due rows (a read that never writes). */
  private async now(): Promise<number> {
    const injected = this.clockNow();
    if (injected !== null) return injected;
    return (await this.pool.query<{ now: number }>(`SELECT ${DB_NOW} AS now`)).rows[0]!.now;
  }

  /** Before a single-statement read: the read-only due probe; a write happens only when something is due. */
  private async fresh(): Promise<number> {
    const probe = (await this.pool.query<Probe>(probeSql(this.clockNow()))).rows[0]!;
    if (probe.due) await this.write(async () => undefined);
    return probe.now;
  }

  /** Several reads from one snapshot (REPEATABLE READ, READ ONLY), after moving anything due. */
  private async snapshot<T>(fn: (db: Queryable, now: number) => Promise<T>): Promise<T> {
    for (;;) {
      const client = await this.pool.connect();
      let broken: Error | boolean | undefined;
      let due = false;
      try {
        const probe = await begin(client, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', this.clockNow());
        due = probe.due;
        if (!due) {
          const out = await fn(client, probe.now);
          await client.query('COMMIT');
          return out;
        }
        await client.query('ROLLBACK');
      } catch (e) {
        broken = isConnectionError(e) ? (e as Error) : await rollback(client);
        throw e;
      } finally {
        client.release(broken);
      }
      await this.write(async () => undefined);
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async createTask(cmd: Parameters<Store['createTask']>[0]) {
    return this.write((tx) => createTask(tx, cmd));
  }
  async getTask(id: string, agent?: string) {
    return guarded(async () => {
      await this.fresh();
      return getTask(this.pool, id, agent);
    });
  }
  async listTasks(q: Parameters<Store['listTasks']>[0]) {
    return guarded(async () => {
      await this.fresh();
      return listTasks(this.pool, q);
    });
  }
  async claimTask(cmd: Parameters<Store['claimTask']>[0]) {
    return guarded(async () => {
      // One round trip when it wins and locks no files (one-trip.ts); anything else takes the general path.
      if (cmd.files.length === 0) {
        const one = await claimOne(this.pool, this.clockNow(), cmd);
        if (one.done) {
          await this.feed?.committed([one.event]);
          return { ok: true as const, ...one.value };
        }
      }
      return this.write((tx) => claimWithFiles(tx, cmd));
    });
  }
  async claimNext(cmd: Parameters<Store['claimNext']>[0]) {
    return guarded(async () => {
      // One statement: the look, the claim and its event (one-trip.ts). An empty claim-next writes nothing.
      // Something due is moved by a write first; a candidate that other workers took first (SKIP LOCKED, or
      // they committed) sends us to look again.
      for (;;) {
        const one = await claimNextOne(this.pool, this.clockNow(), cmd);
        if (one.done) {
          await this.feed?.committed([one.event]);
          return one.value;
        }
        if (one.due) await this.write(async () => undefined);
        else if (!one.claimable) return null;
      }
    });
  }
  async heartbeat(cmd: Parameters<Store['heartbeat']>[0]) {
    return this.write((tx) => heartbeat(tx, cmd));
  }
  async release(cmd: Parameters<Store['release']>[0]) {
    return this.write(async (tx) => {
      const holder = cmd.note ? await holderOf(tx, cmd.task_id, cmd.claim_id) : null;
      return withNote(tx, await release(tx, cmd, this.claimEnded), cmd.note, holder, 'release', true);
    });
  }
  async submit(cmd: Parameters<Store['submit']>[0]) {
    // A change record or holds to take (SPEC §14) go the general way too.
    if (cmd.note || cmd.change || cmd.hold) {
      return this.write(async (tx): Promise<SubmitOutcome> => {
        const out = await submit(tx, cmd, this.claimEnded);
        if (!out.ok && out.reason === 'work_tree') return out;
        if (out.ok && !out.replayed && cmd.hold) {
          await holdAtSubmit(tx, { ...cmd.hold, board: out.task.board, task_id: cmd.task_id });
        }
        // SPEC §15: completed work with commits enters the integration queue in the same transaction.
        const queued = out.ok && !out.replayed ? integrationOf(cmd) : null;
        if (queued) await queueIntegration(tx, queued);
        const noted = await withNote(
          tx,
          out,
          cmd.note,
          out.ok ? out.task.claimed_by : null,
          'submit',
          out.ok && !out.replayed,
        );
        return noted.ok ? { ...noted, ended_locks: (tx.endedLocks ?? 0) > 0 } : noted;
      });
    }
    return guarded(async () => {
      // One round trip in the common case (coord_submit, migration 0005); replays, losses, locks, dependents
      // and anything due take the general path.
      const one = await submitOne(this.pool, this.clockNow(), cmd);
      // The claim recorded its work tree: verify it first (SPEC §14); nothing was written.
      if (one.tree) return one.tree;
      if (one.done) {
        await this.feed?.committed([one.event]);
        // The statement ran only with no lock of the claim to end (coord_submit): none waits for git.
        return { ok: true as const, ...one.value, ended_locks: false };
      }
      return this.write(async (tx): Promise<SubmitOutcome> => {
        const out = await submit(tx, cmd, this.claimEnded);
        return out.ok ? { ...out, ended_locks: (tx.endedLocks ?? 0) > 0 } : out;
      });
    });
  }
  async cancel(cmd: Parameters<Store['cancel']>[0]) {
    return this.write(async (tx) => {
      // Locked, so "was it open" is still true when the cancel runs (a second cancel writes no second note).
      const open = cmd.note ? await isOpen(tx, cmd.task_id) : false;
      return withNote(tx, await cancel(tx, cmd, this.claimEnded), cmd.note, cmd.agent, 'cancel', open);
    });
  }
  async putArtifact(cmd: Parameters<Store['putArtifact']>[0]) {
    return this.write((tx) => putArtifact(tx, cmd));
  }
  async getArtifact(taskId: string, artifactId: string) {
    return guarded(() => getArtifact(this.pool, taskId, artifactId));
  }
  async listArtifacts(taskId: string) {
    return guarded(() => listArtifacts(this.pool, taskId));
  }
  async inbox(q: Parameters<Store['inbox']>[0]) {
    return guarded(() => this.snapshot((db, now) => inbox(db, now, q)));
  }
  async events(q: Parameters<Store['events']>[0]) {
    return guarded(() => listEvents(this.pool, q));
  }
  async activity(q: Parameters<Store['activity']>[0]) {
    return guarded(() => this.snapshot((db, now) => activity(db, now, q)));
  }
  async acquireLocks(cmd: Parameters<Store['acquireLocks']>[0]) {
    return this.write((tx) => acquireLocks(tx, cmd));
  }
  async decideEdit(cmd: Parameters<Store['decideEdit']>[0]) {
    const look = await guarded(async () => peekEdit(this.pool, await this.now(), cmd));
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
    return guarded(async () => liveLocks(this.pool, await this.now(), { board }));
  }
  async endSession(sessionId: string) {
    return this.write((tx) => endSession(tx, sessionId, this.claimEnded));
  }
  // The integration queue (SPEC §15): integration.ts.
  async sweep() {
    return guarded(async () => {
      const probe = (await this.pool.query<Probe & { locks_due: boolean }>(sweepProbeSql(this.clockNow()))).rows[0]!;
      if (!probe.due && !probe.locks_due) return 0;
      return this.write(async (tx) => tx.moved + (await freeLapsedLocks(tx)));
    });
  }
  async setDeps(cmd: Parameters<Store['setDeps']>[0]) {
    return this.write((tx) => setDeps(tx, cmd));
  }
  async createPlan(cmd: Parameters<Store['createPlan']>[0]) {
    return this.write((tx) => createPlan(tx, cmd));
  }
  async taskStates(ids: string[]) {
    return guarded(() => taskStates(this.pool, ids));
  }
  async close() {
    this.listeners.clear();
    await this.feed?.close();
    await this.pool.end().catch(() => {});
  }
}

/** BEGIN and the now/due probe in one round trip (simple protocol: two statements, one message). */
async function begin(client: pg.PoolClient, begin: string, now: number | null): Promise<Probe> {
  const results = (await client.query(`${begin}; ${probeSql(now)}`)) as unknown as pg.QueryResult<Probe>[];
  const probe = results[1]?.rows[0];
  if (!probe) throw new Error('due probe returned no row');
  return probe;
}

/** Ends a failed transaction; a connection that cannot even roll back is discarded. */
const rollback = (client: pg.PoolClient): Promise<boolean | undefined> =>
  client.query('ROLLBACK').then(
    () => undefined,
    () => true,
  );

/** The agent whose claim this is (a claim_id names one claim of one agent), for a release's note. */
const holderOf = async (tx: Tx, taskId: string, claimId: string): Promise<string | null> =>
  (
    await row<{ claimed_by: string | null }>(
      tx.db,
      'SELECT claimed_by FROM tasks WHERE id = @id AND claim_id = @claim_id',
      {
        id: taskId,
        claim_id: claimId,
      },
    )
  )?.claimed_by ?? null;

/** Whether a cancel would change the task; the row is locked until the cancel runs. */
const isOpen = async (tx: Tx, taskId: string): Promise<boolean> => {
  const r = await row<{ state: string }>(tx.db, 'SELECT state FROM tasks WHERE id = @id FOR NO KEY UPDATE', {
    id: taskId,
  });
  return r?.state === 'queued' || r?.state === 'claimed';
};
