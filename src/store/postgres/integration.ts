/** The integration queue (SPEC §15) in PostgreSQL, the twin of sqlite/integration.ts. */
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
import { insertTask } from './create-task.js';
import type { Queryable } from './database.js';
import { recordSubmittedHead } from './integration-resubmit.js';
import { landed } from './landed.js';
import { MESSAGES_SQL } from './messages-sql.js';
import { inTx } from './runner.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const QUEUE = `INSERT INTO integrations (task_id, board, state, worktree, branch, head, queued_at, updated_at)
  SELECT id, board, 'pending', @worktree, @branch, @head, @now::bigint, @now::bigint
  FROM tasks WHERE id = @task_id
  ON CONFLICT (task_id) DO NOTHING RETURNING task_id`;

export async function queueIntegration(tx: Tx, cmd: QueueIntegrationCommand): Promise<{ created: boolean }> {
  // A follow-up's head goes to the task it resolves (SPEC §15), which is merged with it; the follow-up is not queued.
  if ((await recordSubmittedHead(tx, cmd)).carried) return { created: false };
  return { created: (await row(tx.db, QUEUE, { ...cmd, now: tx.now })) !== undefined };
}

// The winning write: a free or lapsed slot, or the caller's own (a renewal). Two integrators inserting at
// once: one inserts, the other waits on the primary key and then takes the DO UPDATE path, whose WHERE
// sees the winner's live lease and refuses.
const TAKE = `INSERT INTO integration_slots (board, holder, slot_id, lease_until)
  VALUES (@board, @holder, @slot_id, @lease_until::bigint)
  ON CONFLICT (board) DO UPDATE SET holder = excluded.holder, slot_id = excluded.slot_id, lease_until = excluded.lease_until
  WHERE integration_slots.lease_until <= @now::bigint OR integration_slots.slot_id = excluded.slot_id
  RETURNING lease_until`;

export async function takeSlot(tx: Tx, cmd: TakeSlotCommand): Promise<SlotOutcome> {
  const won = await row<{ lease_until: string }>(tx.db, TAKE, {
    ...cmd,
    lease_until: tx.now + cmd.lease_ms,
    now: tx.now,
  });
  if (won) return { ok: true, lease_until: new Date(Number(won.lease_until)).toISOString() };
  const held = await row<{ holder: string; lease_until: string }>(
    tx.db,
    'SELECT holder, lease_until FROM integration_slots WHERE board = @board',
    cmd,
  );
  return { ok: false, holder: held?.holder ?? '', lease_until: new Date(Number(held?.lease_until ?? 0)).toISOString() };
}

export async function releaseSlot(tx: Tx, board: string, slot_id: string): Promise<{ released: boolean }> {
  const gone = await row(
    tx.db,
    'DELETE FROM integration_slots WHERE board = @board AND slot_id = @slot_id RETURNING board',
    {
      board,
      slot_id,
    },
  );
  return { released: gone !== undefined };
}

const OPEN = `SELECT i.*, t.title, t.claimed_by, t.created_by, t.blocked_by, t.priority
  FROM integrations AS i JOIN tasks AS t ON t.id = i.task_id
  WHERE i.board = @board AND i.state <> 'merged' ORDER BY i.seq`;

export async function integrationQueue(db: Queryable, board: string): Promise<QueuedIntegration[]> {
  return (await rows<QueueRow>(db, OPEN, { board })).map(toQueued);
}

// The slot row is locked (FOR SHARE) until COMMIT: a new holder cannot take it between the check and the write.
const FENCE = `SELECT 1 AS ok FROM integrations AS i JOIN integration_slots AS s ON s.board = i.board
  WHERE i.task_id = @task_id AND s.slot_id = @slot_id AND s.lease_until > @now::bigint FOR SHARE OF s`;

// A window's event is fenced like a result: the slot row is held (FOR SHARE) until the event is appended.
const HELD = `SELECT 1 AS ok FROM integration_slots
  WHERE board = @board AND slot_id = @slot_id AND lease_until > @now::bigint FOR SHARE`;

/** SPEC §15: a window's event, appended only by the live slot's holder. */
export async function recordWindow(tx: Tx, cmd: RecordWindowCommand): Promise<{ recorded: boolean }> {
  if (!(await row(tx.db, HELD, { board: cmd.board, slot_id: cmd.slot_id, now: tx.now }))) return { recorded: false };
  appendEvent(tx, windowEvent(cmd));
  return { recorded: true };
}

const RECORD = `UPDATE integrations SET state = @state, reason = @reason, commit_sha = @commit, tried_head = @head,
    target = @target, followup = COALESCE(@followup, followup), flaky = @flaky, updated_at = @now::bigint
  WHERE task_id = @task_id RETURNING *`;

export async function recordIntegration(tx: Tx, cmd: RecordIntegrationCommand): Promise<RecordOutcome> {
  if (!(await row(tx.db, FENCE, { task_id: cmd.task_id, slot_id: cmd.slot_id, now: tx.now }))) {
    const known = await row(tx.db, 'SELECT 1 AS ok FROM integrations WHERE task_id = @task_id', cmd);
    return { ok: false, reason: known ? 'stale_slot' : 'not_found' };
  }
  let followup: string | null = null;
  if (cmd.followup) followup = (await insertTask(tx, cmd.followup, { blockers: [], parent: null })).id;
  const r = (await row<IntegrationRow>(tx.db, RECORD, recordValues(cmd, followup, tx.now))) as IntegrationRow;
  const note = resultNote(cmd);
  if (note) await inTx(tx, MESSAGES_SQL, (q) => insertNote(q, note));
  appendEvent(tx, integrationEvent(cmd, followup));
  // SPEC §11: a merge is when work with commits lands — its dependents may be ready now (task.ready).
  if (r.state === 'merged') await landed(tx, cmd.task_id, 'coord');
  const worker = await row<{ claimed_by: string | null; created_by: string }>(
    tx.db,
    'SELECT claimed_by, created_by FROM tasks WHERE id = @task_id',
    cmd,
  );
  const told = toldMessage(r, worker ? (worker.claimed_by ?? worker.created_by) : null);
  if (told) await inTx(tx, MESSAGES_SQL, (q) => sendMessage(q, told));
  return { ok: true, integration: toIntegration(r), followup_id: followup };
}

type PersonOutcome = { ok: true; integration: Integration } | { ok: false; state: IntegrationState };

export async function approveIntegration(tx: Tx, task_id: string, agent: string | null): Promise<PersonOutcome> {
  const r = await row<IntegrationRow>(
    tx.db,
    `UPDATE integrations SET approved = true, updated_at = @now::bigint
     WHERE task_id = @task_id AND state IN ('awaiting_review', 'pending') RETURNING *`,
    { task_id, now: tx.now },
  );
  if (!r) return refused(tx.db, task_id);
  appendEvent(tx, approvalEvent(r, agent));
  return { ok: true, integration: toIntegration(r) };
}

export async function retryIntegration(tx: Tx, task_id: string): Promise<PersonOutcome> {
  const r = await row<IntegrationRow>(
    tx.db,
    `UPDATE integrations SET state = 'pending', reason = NULL, updated_at = @now::bigint
     WHERE task_id = @task_id AND state IN ('conflict', 'check_failed', 'blocked', 'pending') RETURNING *`,
    { task_id, now: tx.now },
  );
  return r ? { ok: true, integration: toIntegration(r) } : refused(tx.db, task_id);
}

async function refused(db: Queryable, task_id: string): Promise<{ ok: false; state: IntegrationState }> {
  const r = await row<{ state: IntegrationState }>(db, 'SELECT state FROM integrations WHERE task_id = @task_id', {
    task_id,
  });
  return { ok: false, state: r?.state ?? 'none' };
}

export async function integrationsOf(
  db: Queryable,
  ids: string[],
): Promise<Record<string, ReturnType<typeof toIntegration>>> {
  if (ids.length === 0) return {};
  return integrationsById(
    await rows<IntegrationRow>(db, 'SELECT * FROM integrations WHERE task_id = ANY(@ids::text[])', { ids }),
  );
}

export async function integrationTaskIds(
  db: Queryable,
  q: { board?: string | undefined; state: IntegrationState; limit: number },
): Promise<string[]> {
  const found = await rows<{ task_id: string }>(
    db,
    `SELECT task_id FROM integrations WHERE state = @state AND (@board::text IS NULL OR board = @board)
     ORDER BY seq LIMIT @limit::int`,
    { state: q.state, board: q.board ?? null, limit: q.limit },
  );
  return found.map((r) => r.task_id);
}

export async function integrationBoards(db: Queryable): Promise<string[]> {
  const found = await rows<{ board: string }>(db, "SELECT DISTINCT board FROM integrations WHERE state <> 'merged'");
  return found.map((r) => r.board);
}
