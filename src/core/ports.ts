/**
 * The store port: domain-shaped and atomic inside. Each method is one
 * transaction in the backend's own SQL; a lost race comes back as a value
 * (`{ ok: false, reason }`), never as an exception or parsed SQL error text.
 * Core turns those values into CoordErrors in exactly one place (ops/outcomes.ts).
 */

import type { DependencyStore } from './board/plan-ports.js';
import type { Connectors } from './connectors/connector-ports.js';
import type { LockConflict, LockStore } from './edits/lock-ports.js';
import type { IntegrationStore } from './integration/integration-ports.js';
import type { NoteDraft, NotesAndMessages } from './messages/message-ports.js';
import type { Artifact, Blocker, ClaimGrant, CoordEvent, ResultStatus, Task, TaskState } from './model.js';
import type { ChangeRecord } from './worktrees/git-port.js';
import type { ClaimTree, WorktreeStore } from './worktrees/worktree-ports.js';

// The rooms' own parts of the port, named here too for the files that read them with the rest.
export type { PlanCommand, PlanLink, PlanTaskCommand, SetDepsCommand } from './board/plan-ports.js';
export type {
  AcquireLocksCommand,
  DecideEditCommand,
  EditDecision,
  LockConflict,
  SessionEnded,
} from './edits/lock-ports.js';

/** Capabilities that differ between backends, named in one place. */
export interface StoreCapabilities {
  /** Events written through another process (another daemon) can reach this process's subscribers. */
  crossProcessEvents: boolean;
  /** Time comes from the database clock rather than the injected clock. */
  databaseClock: boolean;
}

export type Lost =
  | { ok: false; reason: 'not_found' /** The id that was not found, when it is not the task acted on. */; id?: string }
  | { ok: false; reason: 'claimed'; holder: string; lease_until: string }
  | { ok: false; reason: 'not_claimable'; state: TaskState; for?: string | null }
  | { ok: false; reason: 'cancelled' | 'expired' }
  | { ok: false; reason: 'stale_claim' | 'lease_expired' | 'not_claimed'; state: TaskState }
  | { ok: false; reason: 'result_mismatch' }
  | { ok: false; reason: 'idempotency_conflict'; task_id: string }
  | { ok: false; reason: 'artifact_conflict'; sha256: string }
  | { ok: false; reason: 'lock_conflict'; conflicts: LockConflict[] }
  | { ok: false; reason: 'blocked'; blocked: Blocker[] }
  | { ok: false; reason: 'dependency_cycle'; cycle: string[] };

export type Outcome<T> = ({ ok: true } & T) | Lost;

export interface CreateTaskCommand {
  board: string;
  kind: string;
  title: string;
  body: string;
  priority: number;
  labels: string[];
  for: string | null;
  created_by: string;
  ttl_ms: number;
  idempotency_key: string | null;
  /** sha256 of the canonical create payload; same key + other hash → idempotency_conflict. */
  payload_hash: string;
  /** SPEC §11: ids of tasks of the same board this one waits for (deduplicated, ≤ 50). */
  blocked_by: string[];
  /** SPEC §11: a task of the same board. */
  parent: string | null;
}

export interface ClaimCommand {
  task_id: string;
  agent: string;
  lease_ms: number;
  /** Minted by core; used only when this call wins a new claim. */
  claim_id: string;
  session_id: string | null;
  /** Canonical keys to lock with the claim (rule 10): claim and lock in one transaction, or neither. */
  files: string[];
  /** SPEC §14: the claimer's work tree — its lock becomes a hold when the claim ends, and that tree's holds don't block it. */
  worktree?: string | null;
}

export interface ClaimNextCommand extends Omit<ClaimCommand, 'task_id' | 'files'> {
  board: string;
  kinds: string[];
  labels: string[];
}

export interface FenceCommand {
  task_id: string;
  claim_id: string;
}

export interface SubmitCommand extends FenceCommand {
  /** Written in the same transaction (SPEC §12); not again on a replay. */
  note?: NoteDraft | null;
  status: ResultStatus;
  result: unknown;
  result_hash: string;
  /** SPEC §14: the change record, kept only by the first submit (a replay returns the one kept). */
  change?: ChangeRecord | null;
  /** SPEC §14: the submitter's plain locks from this work tree on these paths become holds of the task. */
  hold?: { agent: string; worktree: string; paths: string[] } | null;
  /**
   * SPEC §14 "Verified done": core has not looked at the claim's work tree yet. If this claim recorded one,
   * nothing is written and the answer is `work_tree` (core asks git, then submits again); if it recorded none,
   * the submit goes on — so a program's submit costs no read of its work tree first.
   */
  unless_tree?: boolean;
}

/** A submit with `unless_tree` whose claim recorded a work tree: nothing was written; verify it first. */
export interface TreeToVerify {
  ok: false;
  reason: 'work_tree';
  tree: ClaimTree;
}

/**
 * A submit's answer. `ended_locks`: this submit ended a work-tree lock that now waits for git to say what is
 * pending (SPEC §14, `settleEnded`); false when none did, so the caller need not look for any. `integrated`:
 * false when the store knows the task has no integration (SPEC §15) — its `{state: "none"}` needs no look;
 * absent when it did not look.
 */
export type SubmitOutcome =
  | Outcome<{ task: Task; replayed: boolean; ended_locks: boolean; integrated?: boolean }>
  | TreeToVerify;

export interface ListTasksQuery {
  board?: string | undefined;
  state?: TaskState | undefined;
  kind?: string | undefined;
  label?: string | undefined;
  agent?: string | undefined;
  limit: number;
  cursor?: string | undefined;
  /** SPEC §11: only children of this task. */
  parent?: string | undefined;
  /** SPEC §11: only queued tasks that are ready (true) or blocked (false). */
  ready?: boolean | undefined;
}

export interface InboxQuery {
  agent: string;
  board: string;
  since?: number | undefined;
  limit: number;
}

export interface InboxView {
  cursor: number;
  claims: Task[];
  tasks: Task[];
  more: number;
  gone: { id: string; state: TaskState; claimed_by: string | null }[];
  /** Queued tasks the agent could claim once their blockers complete (SPEC §11); not listed. */
  blocked: number;
  /** false: the agent has no unacknowledged message on the board, so the inbox need not ask for delivery. */
  mail?: boolean;
}

export interface PutArtifactCommand extends FenceCommand {
  artifact_id: string;
  name: string;
  content_type: string;
  bytes: Uint8Array;
  sha256: string;
}

/** Events after `since`, oldest first; `task_id` narrows to one task's history; `tail` takes the newest `limit`. */
export interface EventsQuery {
  board?: string | undefined;
  since: number;
  limit: number;
  task_id?: string | undefined;
  tail?: boolean | undefined;
}
export type EventListener = (events: CoordEvent[]) => void;

export interface Store
  extends NotesAndMessages,
    WorktreeStore,
    Connectors,
    IntegrationStore,
    LockStore,
    DependencyStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly capabilities: StoreCapabilities;

  createTask(cmd: CreateTaskCommand): Promise<Outcome<{ task: Task; created: boolean }>>;
  /** The task as `agent` may see it (private tasks of others are `not_found`); no agent = operator view. */
  getTask(id: string, agent?: string): Promise<Task | null>;
  listTasks(q: ListTasksQuery): Promise<{ tasks: Task[]; next_cursor: string | null }>;

  claimTask(cmd: ClaimCommand): Promise<Outcome<Omit<ClaimGrant, never>>>;
  /** null when nothing is claimable; never opens a write transaction in that case. */
  claimNext(cmd: ClaimNextCommand): Promise<ClaimGrant | null>;
  heartbeat(cmd: FenceCommand & { lease_ms: number | null }): Promise<Outcome<{ lease_until: string }>>;
  release(cmd: FenceCommand & { to: string | null; note?: NoteDraft | null }): Promise<Outcome<{ task: Task }>>;
  submit(cmd: SubmitCommand): Promise<SubmitOutcome>;
  cancel(cmd: {
    task_id: string;
    agent: string;
    reason: string | null;
    note?: NoteDraft | null;
  }): Promise<Outcome<{ task: Task }>>;

  putArtifact(cmd: PutArtifactCommand): Promise<Outcome<{ artifact: Artifact; created: boolean }>>;
  getArtifact(task_id: string, artifact_id: string): Promise<{ artifact: Artifact; bytes: Uint8Array } | null>;
  /** A task's artifacts (without their bytes), oldest first. */
  listArtifacts(task_id: string): Promise<Artifact[]>;

  inbox(q: InboxQuery): Promise<InboxView>;
  events(q: EventsQuery): Promise<CoordEvent[]>;
  /** Called after each commit with the events it appended (and, where capable, other processes' events). */
  subscribe(listener: EventListener): () => void;

  /** Who did what lately: agents by their last event, and who holds which claims. */
  activity(q: { board?: string | undefined; since_ms: number }): Promise<Activity>;
  /** Move due leases and ttls now (the daemon's optional background sweep). Returns how many rows moved. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export interface Activity {
  agents: { name: string; last_seen: string }[];
  claims: { agent: string; task_id: string }[];
}
