import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import { isReadOnly } from '../../core/edit-decision.js';
import type { CoordEvent } from '../../core/model.js';
import type { EventListener, Store, StoreCapabilities } from '../../core/ports.js';
import type { AgentTree, BoardRepo, ClaimTree, HoldTrim } from '../../core/worktree-ports.js';
import { needsTouch } from '../shared/connector-rows.js';
import { answerOf } from '../shared/edit-answer.js';
import { integrationOf } from '../shared/integration-rows.js';
import { publishTo } from '../shared/publish.js';
import type { TaskRow } from '../shared/rows.js';
import { getArtifact, listArtifacts, putArtifact } from './artifacts.js';
import { cancel } from './cancel.js';
import { claimWithFiles } from './claim-with-files.js';
import {
  addConnectCode,
  approve,
  getClient,
  grantOfAccessToken,
  listGrants,
  pendingConnect,
  redeemCode,
  registerClient,
  revokeGrant,
  rotateRefresh,
  touchGrant,
} from './connectors.js';
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
import { inbox } from './inbox.js';
import {
  approveIntegration,
  integrationBoards,
  integrationQueue,
  integrationsOf,
  integrationTaskIds,
  queueIntegration,
  recordIntegration,
  releaseSlot,
  retryIntegration,
  takeSlot,
} from './integration.js';
import {
  acquireLocks,
  endedLocks,
  forceReleaseLock,
  freeClaimLocks,
  freeLapsedLocks,
  holdAtSubmit,
  liveLocks,
  releaseLock,
  renewLock,
} from './locks.js';
import {
  ackMessage,
  anyOpen,
  deliver,
  deliveryWrites,
  getMessage,
  listMessages,
  sendMessage,
  unreadCounts,
} from './messages.js';
import { addNote, taskNotes, withNote } from './notes.js';
import { claimNextOne, claimOne, submitOne } from './one-trip.js';
import { guarded, isConnectionError, isRetryable } from './pg-errors.js';
import { activity, getTask, lastSeq, listEvents, listTasks } from './read.js';
import { row } from './sql.js';
import { commit, type Tx } from './tx.js';
import { agentTrees, boardRepo, claimTree, recordClaimTree, seenIn, setBoardRepo, trimHolds } from './worktrees.js';

export const POSTGRES_CAPABILITIES: StoreCapabilities = { crossProcessEvents: true, databaseClock: true };

export interface PostgresStoreOptions extends ConnectionOptions {
  /** Tests only: drive time by hand instead of the database clock. */
  clock?: Clock | undefined;
  /** Tests only: the event feed's safety catch-up interval (default 5 s; event-feed.ts). */
  eventPollMs?: number | undefined;
}

const RETRIES = 5;

/**
 * The store for teams: several daemons on several machines share one
 * PostgreSQL database. Every operation is one transaction (READ COMMITTED);
 * every winning write is one conditional statement; time is the database's.
 */
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
      return this.write(async (tx) => {
        const out = await submit(tx, cmd, this.claimEnded);
        if (out.ok && !out.replayed && cmd.hold) {
          await holdAtSubmit(tx, { ...cmd.hold, board: out.task.board, task_id: cmd.task_id });
        }
        // SPEC §15: completed work with commits enters the integration queue in the same transaction.
        const queued = out.ok && !out.replayed ? integrationOf(cmd) : null;
        if (queued) await queueIntegration(tx, queued);
        return withNote(tx, out, cmd.note, out.ok ? out.task.claimed_by : null, 'submit', out.ok && !out.replayed);
      });
    }
    return guarded(async () => {
      // One round trip in the common case (coord_submit, migration 0005); replays, losses, locks, dependents
      // and anything due take the general path.
      const one = await submitOne(this.pool, this.clockNow(), cmd);
      if (one.done) {
        await this.feed?.committed([one.event]);
        return { ok: true as const, ...one.value };
      }
      return this.write((tx) => submit(tx, cmd, this.claimEnded));
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
  async forceReleaseLock(lockId: string) {
    return { released: await this.write((tx) => forceReleaseLock(tx, lockId)) };
  }
  async trimHolds(trims: HoldTrim[]) {
    return trims.length === 0 ? 0 : this.write((tx) => trimHolds(tx, trims));
  }
  async boardRepo(board: string) {
    return guarded(() => boardRepo(this.pool, board));
  }
  async setBoardRepo(r: BoardRepo, opts: { replaceTarget: boolean }) {
    return this.write((tx) => setBoardRepo(tx, r, opts.replaceTarget));
  }
  async seenIn(board: string, t: Omit<AgentTree, 'seen_at'>) {
    return this.write((tx) => seenIn(tx, board, t));
  }
  async agentTrees(board: string, sinceMs: number) {
    return guarded(() => agentTrees(this.pool, board, sinceMs));
  }
  async recordClaimTree(taskId: string, t: ClaimTree) {
    return this.write((tx) => recordClaimTree(tx, taskId, t));
  }
  async claimTree(taskId: string) {
    return guarded(() => claimTree(this.pool, taskId));
  }
  async listLocks(board?: string) {
    return guarded(async () => liveLocks(this.pool, await this.now(), { board }));
  }
  async endedLocks(board?: string) {
    return guarded(async () => endedLocks(this.pool, await this.now(), board ?? null));
  }
  async endSession(sessionId: string) {
    return this.write((tx) => endSession(tx, sessionId, this.claimEnded));
  }
  // The integration queue (SPEC §15): integration.ts.
  async queueIntegration(cmd: Parameters<Store['queueIntegration']>[0]) {
    return this.write((tx) => queueIntegration(tx, cmd));
  }
  async takeIntegrationSlot(cmd: Parameters<Store['takeIntegrationSlot']>[0]) {
    return this.write((tx) => takeSlot(tx, cmd));
  }
  async releaseIntegrationSlot(board: string, slot_id: string) {
    return this.write((tx) => releaseSlot(tx, board, slot_id));
  }
  async integrationQueue(board: string) {
    return guarded(() => integrationQueue(this.pool, board));
  }
  async recordIntegration(cmd: Parameters<Store['recordIntegration']>[0]) {
    return this.write((tx) => recordIntegration(tx, cmd));
  }
  async approveIntegration(task_id: string) {
    return this.write((tx) => approveIntegration(tx, task_id));
  }
  async retryIntegration(task_id: string) {
    return this.write((tx) => retryIntegration(tx, task_id));
  }
  async integrationsOf(ids: string[]) {
    return guarded(() => integrationsOf(this.pool, ids));
  }
  async integrationBoards() {
    return guarded(() => integrationBoards(this.pool));
  }
  async integrationTaskIds(q: Parameters<Store['integrationTaskIds']>[0]) {
    return guarded(() => integrationTaskIds(this.pool, q));
  }
  async addNote(cmd: Parameters<Store['addNote']>[0]) {
    return this.write((tx) => addNote(tx, cmd));
  }
  async taskNotes(taskId: string, limit: number) {
    return guarded(() => taskNotes(this.pool, taskId, limit));
  }
  async sendMessage(cmd: Parameters<Store['sendMessage']>[0]) {
    return this.write((tx) => sendMessage(tx, cmd));
  }
  async listMessages(q: Parameters<Store['listMessages']>[0]) {
    return guarded(() => listMessages(this.pool, q));
  }
  async deliverMessages(cmd: Parameters<Store['deliverMessages']>[0]) {
    return guarded(async () => {
      if (!(await anyOpen(this.pool, cmd.agent, cmd.board))) return { messages: [], unread: 0 };
      // Look first (read-only): a poll with nothing new to record never opens a write transaction.
      if (!(await deliveryWrites(this.pool, cmd))) return deliver(this.pool, cmd, null);
      return this.write((tx) => deliver(tx.db, cmd, tx));
    });
  }
  async ackMessage(cmd: Parameters<Store['ackMessage']>[0]) {
    return this.write((tx) => ackMessage(tx, cmd));
  }
  async getMessage(id: string, agent: string | undefined) {
    return guarded(() => getMessage(this.pool, id, agent));
  }
  async unreadCounts(board?: string) {
    return guarded(() => unreadCounts(this.pool, board));
  }
  async registerClient(c: Parameters<Store['registerClient']>[0], maxUnused: number) {
    return this.write((tx) => registerClient(tx, c, maxUnused));
  }
  async getClient(clientId: string) {
    return guarded(() => getClient(this.pool, clientId));
  }
  async addConnectCode(c: Parameters<Store['addConnectCode']>[0]) {
    return this.write((tx) => addConnectCode(tx, c));
  }
  async approve(cmd: Parameters<Store['approve']>[0]) {
    return this.write((tx) => approve(tx, cmd));
  }
  async redeemCode(cmd: Parameters<Store['redeemCode']>[0]) {
    return this.write((tx) => redeemCode(tx, cmd));
  }
  async rotateRefresh(cmd: Parameters<Store['rotateRefresh']>[0]) {
    return this.write((tx) => rotateRefresh(tx, cmd));
  }
  async grantOfAccessToken(hash: string) {
    return guarded(async () => {
      const now = await this.now();
      const grant = await grantOfAccessToken(this.pool, hash, now);
      if (grant && needsTouch(grant, now)) await this.write((tx) => touchGrant(tx, grant.id));
      return grant;
    });
  }
  async listGrants() {
    return guarded(() => listGrants(this.pool));
  }
  async pendingConnect() {
    return guarded(async () => pendingConnect(this.pool, await this.now()));
  }
  async revokeGrant(cmd: Parameters<Store['revokeGrant']>[0]) {
    return this.write((tx) => revokeGrant(tx, cmd));
  }
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
