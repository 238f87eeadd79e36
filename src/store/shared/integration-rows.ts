/** What both stores share about the integration queue (SPEC §15): row mapping and the events' payloads. */

import {
  type Integration,
  integrationLine,
  type QueuedIntegration,
  shownIntegration,
} from '../../core/integration/integration.js';
import type {
  QueueIntegrationCommand,
  RecordIntegrationCommand,
  RecordWindowCommand,
} from '../../core/integration/integration-ports.js';
import type { SendMessageCommand } from '../../core/messages/message-ports.js';
import type { SubmitCommand } from '../../core/ports.js';
import { canonicalJson, sha256Hex } from '../../core/shared/canonical-json.js';
import type { NewEvent } from './new-event.js';

/** An integrations row joined with its task's title, worker and blockers. */
export interface IntegrationRow {
  task_id: string;
  board: string;
  state: Integration['state'];
  reason: string | null;
  commit_sha: string | null;
  worktree: string | null;
  branch: string | null;
  head: string;
  tried_head: string | null;
  target: string | null;
  approved: number | boolean;
  followup: string | null;
  /** Added by migration 0012: absent in a row read before it. */
  flaky?: number | boolean | null;
  queued_at: number | string;
  seq: number | string;
  updated_at?: number | string;
}

export interface QueueRow extends IntegrationRow {
  title: string;
  claimed_by: string | null;
  created_by: string;
  blocked_by: string | string[];
  priority: number | string;
}

const iso = (ms: number | string): string => new Date(Number(ms)).toISOString();

export function toIntegration(r: IntegrationRow): Integration & { target?: string; followup?: string } {
  return {
    state: r.state,
    ...(r.reason !== null ? { reason: r.reason } : {}),
    ...(r.commit_sha !== null ? { commit: r.commit_sha } : {}),
    ...(r.target !== null ? { target: r.target } : {}),
    ...(r.followup !== null ? { followup: r.followup } : {}),
    ...(r.flaky === true || r.flaky === 1 ? { flaky: true } : {}),
    ...(r.approved === true || r.approved === 1 ? { approved: true } : {}),
  };
}

export function toQueued(r: QueueRow): QueuedIntegration {
  return {
    task_id: r.task_id,
    board: r.board,
    title: r.title,
    // The claim that completed the task stays named on it; a task completed without one is its author's.
    agent: r.claimed_by ?? r.created_by,
    state: r.state as QueuedIntegration['state'],
    reason: r.reason,
    worktree: r.worktree,
    branch: r.branch,
    head: r.head,
    tried_head: r.tried_head,
    approved: r.approved === true || r.approved === 1,
    priority: Number(r.priority),
    blocked_by: typeof r.blocked_by === 'string' ? (JSON.parse(r.blocked_by) as string[]) : r.blocked_by,
    queued_at: iso(r.queued_at),
    ...(r.updated_at !== undefined ? { updated_at: iso(r.updated_at) } : {}),
    ...(r.target !== null ? { target: r.target } : {}),
    ...(r.followup !== null ? { followup: r.followup } : {}),
  };
}

/** The event of a recorded result: `task.integrated {commit}` on success, `task.integration` otherwise. */
export function integrationEvent(cmd: RecordIntegrationCommand, followup: string | null): NewEvent {
  const base = { board: cmd.board, task_id: cmd.task_id, agent: 'coord' };
  if (cmd.state === 'merged') {
    return {
      ...base,
      type: 'task.integrated',
      data: { commit: cmd.commit, target: cmd.target, how: cmd.how, ...(cmd.flaky ? { flaky: true } : {}) },
    };
  }
  return {
    ...base,
    type: 'task.integration',
    data: { state: cmd.state, reason: cmd.reason, target: cmd.target, ...(followup ? { followup } : {}) },
  };
}

/** SPEC §15: the integrator began checking a window's tasks together; appended by the slot's holder. */
export function windowEvent(cmd: RecordWindowCommand): NewEvent {
  return {
    type: 'integration.window',
    board: cmd.board,
    task_id: null,
    agent: 'coord',
    data: {
      target: cmd.target,
      tasks: cmd.tasks,
      size: cmd.size,
      ...(cmd.lane === null ? {} : { lane: cmd.lane }),
    },
  };
}

/** A person's approval (SPEC §15/§19), appended with the row it changed: who approved, in which state. */
export function approvalEvent(r: IntegrationRow, agent: string | null): NewEvent {
  return {
    type: 'task.approved',
    board: r.board,
    task_id: r.task_id,
    agent,
    data: { state: r.state, target: r.target },
  };
}

/** What a submit queues for integration (SPEC §15): a completed task whose change record has commits. */
export function integrationOf(cmd: SubmitCommand): QueueIntegrationCommand | null {
  const c = cmd.change;
  if (cmd.status !== 'completed' || !c || c.commits.length === 0) return null;
  return { task_id: cmd.task_id, worktree: c.worktree, branch: c.branch, head: c.head };
}

/**
 * The message that tells the agent who did the work (SPEC §15): "#k3x9 merged into main as 3f2a1c",
 * "#k3x9 conflicts with main in src/a.ts: see task #m2q1" — sent in the transaction that records the result.
 */
export function toldMessage(r: IntegrationRow, to: string | null): SendMessageCommand | null {
  const line = integrationLine(r.task_id, shownIntegration(toIntegration(r)));
  if (!line || !to || to === 'coord' || r.state === 'pending') return null;
  const fields = { board: r.board, from: 'coord', to, text: line, task_id: r.task_id, ack_required: false };
  return { ...fields, recipients: [to], idempotency_key: null, payload_hash: sha256Hex(canonicalJson(fields)) };
}

/** The event of a merge a person made, found by the background look (SPEC §11): `task.integrated` as `contained`. */
export const containedEvent = (board: string, c: { task_id: string; head: string; target: string }): NewEvent => ({
  board,
  task_id: c.task_id,
  agent: 'coord',
  type: 'task.integrated',
  data: { commit: c.head, target: c.target, how: 'contained' },
});

/** A recorded result's row values (`followup`: the task it made, if any; a COALESCE keeps an earlier one). */
export const recordValues = (cmd: RecordIntegrationCommand, followup: string | null, now: number) => ({
  task_id: cmd.task_id,
  slot_id: cmd.slot_id,
  state: cmd.state,
  reason: cmd.reason,
  commit: cmd.commit,
  head: cmd.head,
  target: cmd.target,
  followup,
  flaky: cmd.flaky,
  now,
});

/** The note coord writes on a task with its integration's result. */
export const resultNote = (cmd: RecordIntegrationCommand) =>
  cmd.note === null
    ? null
    : { task_id: cmd.task_id, board: cmd.board, agent: 'coord', text: cmd.note, key: null, hash: '' };

/** Integrations by task id. */
export const integrationsById = (found: IntegrationRow[]): Record<string, ReturnType<typeof toIntegration>> =>
  Object.fromEntries(found.map((r) => [r.task_id, toIntegration(r)]));
