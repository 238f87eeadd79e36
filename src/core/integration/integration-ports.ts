/**
 * The store port of the integration queue (SPEC §15), part of `Store`. Each method is one transaction; the
 * slot is taken and checked like a claim (one conditional write), and every record of an integrator's
 * result is fenced by its slot: an integrator whose slot lapsed (it was stopped, or crashed and was
 * replaced) cannot write a result over the new holder's.
 */

import type { CreateTaskCommand } from '../ports.js';
import type { Integration, IntegrationState, QueuedIntegration } from './integration.js';

export interface QueueIntegrationCommand {
  task_id: string;
  /** From the change record (SPEC §14). */
  worktree: string | null;
  branch: string | null;
  head: string;
}

export interface TakeSlotCommand {
  board: string;
  /** Who integrates (`coord integrate` or `serve --integrate`, with its pid): named to the loser. */
  holder: string;
  /** Minted by the integrator once; taking again with the same id renews the lease. */
  slot_id: string;
  lease_ms: number;
}

export type SlotOutcome = { ok: true; lease_until: string } | { ok: false; holder: string; lease_until: string };

export interface RecordIntegrationCommand {
  board: string;
  slot_id: string;
  task_id: string;
  state: Exclude<IntegrationState, 'none'>;
  reason: string | null;
  commit: string | null;
  /** The head this result is about. */
  head: string;
  /** The target branch it was merged into (or tried against). */
  target: string;
  /** merged: fast-forward, merge or contained (the event's data). */
  how: string | null;
  /** merged: the check passed only on a retry (SPEC §15 "Flaky checks"). */
  flaky: boolean;
  /** A note on the task, by `coord` (the conflicting paths, the check's output). */
  note: string | null;
  /** The follow-up task for the agent who did the work (conflict, check_failed). */
  followup: CreateTaskCommand | null;
}

/** SPEC §15 "Speculative window": the integrator begins checking `tasks` together (event integration.window). */
export interface RecordWindowCommand {
  board: string;
  slot_id: string;
  target: string;
  /** In integration order. */
  tasks: string[];
  /** The window's size now (it halves after a red check and grows back). */
  size: number;
  /** `--lanes`: which lane (1, 2, …). */
  lane: number | null;
}

export type RecordOutcome =
  | { ok: true; integration: Integration; followup_id: string | null }
  | { ok: false; reason: 'stale_slot' }
  | { ok: false; reason: 'not_found' };

export interface IntegrationStore {
  /** A completed task with commits enters the queue as pending; again for the same task: nothing changes. */
  queueIntegration(cmd: QueueIntegrationCommand): Promise<{ created: boolean }>;
  /** The board's slot, or who holds it until when. Taking it again with the same slot_id renews it. */
  takeIntegrationSlot(cmd: TakeSlotCommand): Promise<SlotOutcome>;
  /** Idempotent; frees the slot only if `slot_id` still holds it. */
  releaseIntegrationSlot(board: string, slot_id: string): Promise<{ released: boolean }>;
  /** Every task of the board's queue not merged yet, in completion order. Never writes. */
  integrationQueue(board: string): Promise<QueuedIntegration[]>;
  /** Records a result in one transaction (state, note, follow-up, event), only while `slot_id` holds the slot. */
  recordIntegration(cmd: RecordIntegrationCommand): Promise<RecordOutcome>;
  /** Appends the window's event, only while `slot_id` holds the board's slot (false: it does not). */
  recordIntegrationWindow(cmd: RecordWindowCommand): Promise<{ recorded: boolean }>;
  /**
   * A person approves a merge held for review (or a pending task before its turn): it is merged next. The
   * `task.approved` event naming `agent` (who approved) is appended in the same transaction.
   */
  approveIntegration(
    task_id: string,
    agent: string | null,
  ): Promise<{ ok: true; integration: Integration } | { ok: false; state: IntegrationState }>;
  /** A person asks for a conflict, failed check or blocked task to be tried again. */
  retryIntegration(
    task_id: string,
  ): Promise<{ ok: true; integration: Integration } | { ok: false; state: IntegrationState }>;
  /** The boards with tasks in the queue not merged yet (the daemon's integrator looks at these). Never writes. */
  integrationBoards(): Promise<string[]>;
  /** Ids of the tasks whose integration is `state` (oldest first, at most `limit`); `none` is not listed here. */
  integrationTaskIds(q: { board?: string | undefined; state: IntegrationState; limit: number }): Promise<string[]>;
  /** The integration of each task that has one (tasks never queued are left out: `none`). */
  integrationsOf(task_ids: string[]): Promise<Record<string, Integration & { target?: string; followup?: string }>>;
}
