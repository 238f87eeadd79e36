/** The integration queue (SPEC §15) in SQLite: the queue rows, the board's fenced slot, recorded results. */
import type { Integration, IntegrationState, QueuedIntegration } from '../../core/integration/integration.js';
import type {
  QueueIntegrationCommand,
  RecordIntegrationCommand,
  RecordOutcome,
  RecordWindowCommand,
  SlotOutcome,
  TakeSlotCommand,
} from '../../core/integration/integration-ports.js';
import {
  approvalEvent,
  type IntegrationRow,
  integrationEvent,
  integrationsById,
  type QueueRow,
  recordValues,
  resultNote,
  toIntegration,
  toldMessage,
  toQueued,
  windowEvent,
} from '../shared/integration-rows.js';
import { sendMessage } from '../shared/messages.js';
import { insertNote } from '../shared/notes.js';
import type { TaskRow } from '../shared/rows.js';
import { insertTask } from './create-task.js';
import type { Db } from './database.js';
import { recordSubmittedHead } from './integration-resubmit.js';
import { landed } from './landed.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const QUEUE = `INSERT INTO integrations (task_id, board, state, worktree, branch, head, queued_at, seq, updated_at)
  SELECT id, board, 'pending', @worktree, @branch, @head, @now,
         (SELECT COALESCE(MAX(seq), 0) + 1 FROM integrations), @now
  FROM tasks WHERE id = @task_id
  ON CONFLICT (task_id) DO NOTHING`;

export function queueIntegration(tx: Tx, cmd: QueueIntegrationCommand): { created: boolean } {
  // A follow-up's head goes to the task it resolves (SPEC §15), which is merged with it; the follow-up is not queued.
  if (recordSubmittedHead(tx, cmd).carried) return { created: false };
  const run = stmt(tx.db, QUEUE).run({ ...cmd, now: tx.now });
  return { created: run.changes === 1 };
}

// The winning write: a free or lapsed slot, or the caller's own (a renewal). Nobody waits.
const TAKE = `INSERT INTO integration_slots (board, holder, slot_id, lease_until)
  VALUES (@board, @holder, @slot_id, @lease_until)
  ON CONFLICT (board) DO UPDATE SET holder = excluded.holder, slot_id = excluded.slot_id, lease_until = excluded.lease_until
  WHERE integration_slots.lease_until <= @now OR integration_slots.slot_id = excluded.slot_id
  RETURNING lease_until`;

export function takeSlot(tx: Tx, cmd: TakeSlotCommand): SlotOutcome {
  const won = stmt(tx.db, TAKE).get({ ...cmd, lease_until: tx.now + cmd.lease_ms, now: tx.now }) as
    | { lease_until: number }
    | undefined;
  if (won) return { ok: true, lease_until: new Date(won.lease_until).toISOString() };
  const held = stmt(tx.db, 'SELECT holder, lease_until FROM integration_slots WHERE board = ?').get(cmd.board) as {
    holder: string;
    lease_until: number;
  };
  return { ok: false, holder: held.holder, lease_until: new Date(held.lease_until).toISOString() };
}

export function releaseSlot(tx: Tx, board: string, slot_id: string): { released: boolean } {
  const run = stmt(tx.db, 'DELETE FROM integration_slots WHERE board = ? AND slot_id = ?').run(board, slot_id);
  return { released: run.changes === 1 };
}

const OPEN = `SELECT i.*, t.title, t.claimed_by, t.created_by, t.blocked_by, t.priority
  FROM integrations AS i JOIN tasks AS t ON t.id = i.task_id
  WHERE i.board = ? AND i.state <> 'merged' ORDER BY i.seq`;

export function integrationQueue(db: Db, board: string): QueuedIntegration[] {
  return (stmt(db, OPEN).all(board) as QueueRow[]).map(toQueued);
}

// Fenced: the row changes only while slot_id holds a live slot of the task's board.
const RECORD = `UPDATE integrations SET state = @state, reason = @reason, commit_sha = @commit, tried_head = @head,
    target = @target, followup = COALESCE(@followup, followup), flaky = @flaky, updated_at = @now
  WHERE task_id = @task_id AND EXISTS (
    SELECT 1 FROM integration_slots AS s
    WHERE s.board = integrations.board AND s.slot_id = @slot_id AND s.lease_until > @now)
  RETURNING *`;

export function recordIntegration(tx: Tx, cmd: RecordIntegrationCommand): RecordOutcome {
  const fenced = stmt(
    tx.db,
    `SELECT 1 FROM integrations AS i JOIN integration_slots AS s ON s.board = i.board
     WHERE i.task_id = ? AND s.slot_id = ? AND s.lease_until > ?`,
  ).get(cmd.task_id, cmd.slot_id, tx.now);
  if (!fenced) {
    const known = stmt(tx.db, 'SELECT 1 FROM integrations WHERE task_id = ?').get(cmd.task_id);
    return { ok: false, reason: known ? 'stale_slot' : 'not_found' };
  }
  let followup: string | null = null;
  if (cmd.followup) followup = insertTask(tx, cmd.followup, { blockers: [], parent: null }).id;
  const row = stmt(tx.db, RECORD).get({
    ...recordValues(cmd, followup, tx.now),
    flaky: cmd.flaky ? 1 : 0,
  }) as IntegrationRow;
  const note = resultNote(cmd);
  if (note) inTx(tx, MESSAGES_SQL, (q) => insertNote(q, note));
  appendEvent(tx, integrationEvent(cmd, followup));
  // SPEC §11: a merge is when work with commits lands — its dependents may be ready now (task.ready).
  if (row.state === 'merged') landed(tx, cmd.task_id, 'coord');
  const worker = stmt(tx.db, 'SELECT claimed_by, created_by FROM tasks WHERE id = ?').get(cmd.task_id) as {
    claimed_by: string | null;
    created_by: string;
  };
  const told = toldMessage(row, worker.claimed_by ?? worker.created_by);
  if (told) inTx(tx, MESSAGES_SQL, (q) => sendMessage(q, told));
  return { ok: true, integration: toIntegration(row), followup_id: followup };
}

/** SPEC §15: a window's event, fenced like a result: only the live slot's holder appends it. */
export function recordWindow(tx: Tx, cmd: RecordWindowCommand): { recorded: boolean } {
  const held = stmt(tx.db, 'SELECT 1 FROM integration_slots WHERE board = ? AND slot_id = ? AND lease_until > ?').get(
    cmd.board,
    cmd.slot_id,
    tx.now,
  );
  if (!held) return { recorded: false };
  appendEvent(tx, windowEvent(cmd));
  return { recorded: true };
}

type PersonOutcome = { ok: true; integration: Integration } | { ok: false; state: IntegrationState };

/** Approve: a merge held for review (or a task still pending) is merged at the integrator's next look. */
export function approveIntegration(tx: Tx, task_id: string, agent: string | null): PersonOutcome {
  const row = stmt(
    tx.db,
    `UPDATE integrations SET approved = 1, updated_at = ? WHERE task_id = ? AND state IN ('awaiting_review', 'pending')
     RETURNING *`,
  ).get(tx.now, task_id) as IntegrationRow | undefined;
  if (!row) return refused(tx.db, task_id);
  appendEvent(tx, approvalEvent(row, agent));
  return { ok: true, integration: toIntegration(row) };
}

/** Retry: a conflict, failed check or blocked task is pending again (its branch may not have moved). */
export function retryIntegration(tx: Tx, task_id: string): PersonOutcome {
  const row = stmt(
    tx.db,
    `UPDATE integrations SET state = 'pending', reason = NULL, updated_at = ?
     WHERE task_id = ? AND state IN ('conflict', 'check_failed', 'blocked', 'pending') RETURNING *`,
  ).get(tx.now, task_id) as IntegrationRow | undefined;
  return row ? { ok: true, integration: toIntegration(row) } : refused(tx.db, task_id);
}

function refused(db: Db, task_id: string): { ok: false; state: IntegrationState } {
  const row = stmt(db, 'SELECT state FROM integrations WHERE task_id = ?').get(task_id) as
    | { state: IntegrationState }
    | undefined;
  return { ok: false, state: row?.state ?? 'none' };
}

export function integrationsOf(db: Db, ids: string[]): Record<string, ReturnType<typeof toIntegration>> {
  if (ids.length === 0) return {};
  const found = stmt(db, 'SELECT * FROM integrations WHERE task_id IN (SELECT value FROM json_each(?))').all(
    JSON.stringify(ids),
  ) as IntegrationRow[];
  return integrationsById(found);
}

export function integrationTaskIds(
  db: Db,
  q: { board?: string | undefined; state: IntegrationState; limit: number },
): string[] {
  const rows = stmt(
    db,
    `SELECT task_id FROM integrations WHERE state = @state AND (@board IS NULL OR board = @board) ORDER BY seq LIMIT @limit`,
  ).all({ state: q.state, board: q.board ?? null, limit: q.limit }) as Pick<TaskRow, 'id'>[] as unknown as {
    task_id: string;
  }[];
  return rows.map((r) => r.task_id);
}

export function integrationBoards(db: Db): string[] {
  const rows = stmt(db, "SELECT DISTINCT board FROM integrations WHERE state <> 'merged'").all() as { board: string }[];
  return rows.map((r) => r.board);
}
