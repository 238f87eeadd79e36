/**
 * What both stores' façades share (sqlite-store.ts, postgres-store.ts): the list of feature ports a store is
 * composed of, the written-once ports built over the store's runner and its statement tables, subscribe and close.
 * A store gives its own ports (the board's reads, claims), how it runs a program, its tables, its claim code, and
 * how it reads the ended locks; the façade keeps only its lifecycle (open, write for tests).
 */
import type { Connectors } from '../../core/connectors/connector-ports.js';
import type { IntegrationStore } from '../../core/integration/integration-ports.js';
import type { NotesAndMessages } from '../../core/messages/message-ports.js';
import type { EventListener, Store, StoreCapabilities } from '../../core/ports.js';
import type { WorktreeStore } from '../../core/worktrees/worktree-ports.js';
import { ARTIFACTS_SQL, artifactsPort } from './artifacts.js';
import { type ClaimCode, type ClaimWrites, claimEndsSql, claimWritesPort } from './claim-ends-store.js';
import { connectorsPort } from './connectors.js';
import type { ConnectorsSql } from './connectors-sql.js';
import { integrationPort } from './integration.js';
import type { IntegrationSql } from './integration-sql.js';
import { locksPort } from './locks-port.js';
import type { LocksSql } from './locks-sql.js';
import { messagesPort } from './messages.js';
import { taskWritesPort } from './plans.js';
import type { Prog, Q, Runner } from './program.js';
import { type ClaimsPort, type LocksPort, subscribeTo, type TasksPort } from './store-ports.js';
import { worktreesPort } from './worktrees.js';
import { worktreesSql } from './worktrees-sql.js';

/** The reads of the board each store writes its own way (the task writes and artifacts are written once). */
export type TaskReadsPort = Omit<
  TasksPort,
  keyof ReturnType<typeof artifactsPort> | keyof ReturnType<typeof taskWritesPort>
>;

/** The claims' entries a store writes its own way (it may take over a written-once one, given to it). */
export type OwnClaims = Omit<ClaimsPort, keyof ClaimWrites> & Partial<ClaimWrites>;

/**
 * A store's own ports over its core, how it runs a program in a write, its tables of the written-once features, its own code of the
 * claims' single writes, and its ended locks.
 */
export interface StoreParts<C> {
  tasksPort(core: C): TaskReadsPort;
  claimsPort(core: C, written: ClaimWrites): OwnClaims;
  /** A program in a write transaction of the core, the caller's (`<store>/runner.ts`). */
  inTx<S, T>(tx: never, sql: S, prog: (q: Q<S>) => Prog<T>): T | Promise<T>;
  /** The integration queue's table holds the tasks' and the messages' tables too. */
  sql: { integration: IntegrationSql; connectors: ConnectorsSql; locks: LocksSql };
  claims: ClaimCode;
  endedLocks(core: C): WorktreeStore['endedLocks'];
}

/**
 * Every feature port of a store (core/ports.ts Store, less its lifecycle), each an object typed by its
 * interface, so a method missing there fails to compile there.
 */
export interface StorePorts
  extends TasksPort,
    ClaimsPort,
    LocksPort,
    IntegrationStore,
    Connectors,
    WorktreeStore,
    NotesAndMessages {}

/** Each store's capabilities in one place (STYLE rule 3: backend differences are named flags in one table). */
export const STORE_CAPABILITIES: Readonly<Record<Store['kind'], StoreCapabilities>> = {
  sqlite: { crossProcessEvents: false, databaseClock: false },
  // A test that injects a clock turns databaseClock off (postgres-store.ts).
  postgres: { crossProcessEvents: true, databaseClock: true },
};

/** What a façade needs of its store's core (shared/store-core.ts, `<store>/store-core.ts`). */
interface FacadeCore {
  readonly listeners: Set<EventListener>;
  /** One write transaction: due rows moved first, events heard after the commit (`fn` of the store's Tx). */
  write(fn: never): Promise<unknown>;
  /** A program that only reads, outside any transaction; a storage fault answers store_unavailable. */
  readProgram<T>(prog: Prog<T>): Promise<T>;
  /** Now, for a read that needs it (PostgreSQL: the injected clock's, or the database's). */
  now(): Promise<number>;
  close(): Promise<void>;
}

/** A feature's runner over the store's core, with the feature's statements in the store's dialect. */
const runnerOver =
  <C extends FacadeCore>(core: C, inTx: StoreParts<C>['inTx']) =>
  <S>(sql: S): Runner<S> => ({
    write: <T>(prog: (q: Q<S>) => Prog<T>) => core.write(((tx: never) => inTx(tx, sql, prog)) as never) as Promise<T>,
    read: (prog) => core.readProgram(prog(sql)),
    now: () => core.now(),
  });

/** A façade has every port (assigned in its constructor). */
// biome-ignore lint/correctness/noUnusedVariables: merged with the class below, whose type parameters it must repeat
export interface ComposedStore<C extends FacadeCore, K extends Store['kind']> extends StorePorts {}

/**
 * The façade's base: the store's kind and capabilities (`own`: those its core decides), the ports of `parts` over
 * `core`, subscribe to the core's listeners, and close.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every port (featurePorts is typed by StorePorts)
export abstract class ComposedStore<C extends FacadeCore, K extends Store['kind']> {
  readonly capabilities: StoreCapabilities;
  /** One write transaction in the store's own terms (tests): the core's (store-core.ts). */
  readonly write: C['write'];

  constructor(
    readonly kind: K,
    protected readonly core: C,
    parts: StoreParts<C>,
    own: Partial<StoreCapabilities> = {},
  ) {
    this.capabilities = { ...STORE_CAPABILITIES[kind], ...own };
    Object.assign(this, featurePorts(core, parts));
    this.write = core.write.bind(core) as C['write'];
  }

  subscribe(listener: EventListener): () => void {
    return subscribeTo(this.core.listeners, listener);
  }

  close(): Promise<void> {
    return this.core.close();
  }
}

/** The ports of a store: its own two (the board's reads, claims), and the written-once features over its runner and tables. */
function featurePorts<C extends FacadeCore>(core: C, p: StoreParts<C>): StorePorts {
  const run = runnerOver(core, p.inTx);
  const claimWrites = claimWritesPort(run(claimEndsSql(p.sql.integration, p.sql.locks, p.claims)));
  return {
    ...artifactsPort(run(ARTIFACTS_SQL)),
    ...taskWritesPort(run(p.sql.integration.tasks)),
    ...p.tasksPort(core),
    ...claimWrites,
    ...p.claimsPort(core, claimWrites),
    ...locksPort(run(p.sql.locks)),
    ...integrationPort(run(p.sql.integration)),
    ...connectorsPort(run(p.sql.connectors)),
    ...worktreesPort(run(worktreesSql(p.sql.integration.landed, p.sql.locks)), p.endedLocks(core)),
    ...messagesPort(run(p.sql.integration.messages)),
  };
}
