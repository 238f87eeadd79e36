/**
 * The integration queue (SPEC §15) of both stores: the queue rows, the board's fenced slot, recorded results.
 * Programs (program.ts) over the statements in each store's dialect (`<store>/integration-sql.ts`), which also
 * names the store's own code they call (a follow-up task's insert, landing) and the messages' statements.
 */
import type { Integration, IntegrationState } from '../../core/integration/integration.js';
import type {
  IntegrationStore,
  QueueIntegrationCommand,
  RecordIntegrationCommand,
  RecordOutcome,
  RecordWindowCommand,
  SlotOutcome,
  TakeSlotCommand,
} from '../../core/integration/integration-ports.js';
import { insertTask } from './deps.js';
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
} from './integration-rows.js';
import type { IntegrationSql } from './integration-sql.js';
import { landed } from './landed.js';
import { sendMessage } from './messages.js';
import { insertNote } from './notes.js';
import { all, emit, get, type Prog, type Q, type Runner, run } from './program.js';

type W = Q<IntegrationSql>;
type PersonOutcome = { ok: true; integration: Integration } | { ok: false; state: IntegrationState };

export function* queueIntegration(q: W, cmd: QueueIntegrationCommand): Prog<{ created: boolean }> {
  // SPEC §15 "What is merged is what was submitted": a submit that records a head moves the integration of the
  // task it is about — its own, or for a follow-up the task whose conflict or failed check it resolves — to
  // that head, pending again; the follow-up itself is not queued.
  const moved = yield* all<{ task_id: string }>(q.sql.resubmit, { ...cmd, now: q.now });
  if (moved.some((m) => m.task_id !== cmd.task_id)) return { created: false };
  return { created: (yield* run(q.sql.queue, { ...cmd, now: q.now })) === 1 };
}

function* takeSlot(q: W, cmd: TakeSlotCommand): Prog<SlotOutcome> {
  // The winning write: a free or lapsed slot, or the caller's own (a renewal). Nobody waits.
  const won = yield* get<{ lease_until: number }>(q.sql.takeSlot, {
    ...cmd,
    lease_until: q.now + cmd.lease_ms,
    now: q.now,
  });
  if (won) return { ok: true, lease_until: new Date(Number(won.lease_until)).toISOString() };
  const held = yield* get<{ holder: string; lease_until: number }>(q.sql.slotHolder, cmd);
  return { ok: false, holder: held?.holder ?? '', lease_until: new Date(Number(held?.lease_until ?? 0)).toISOString() };
}

function* recordIntegration(q: W, cmd: RecordIntegrationCommand): Prog<RecordOutcome> {
  // Fenced: the row changes only while slot_id holds a live slot of the task's board.
  if (!(yield* get(q.sql.fence, { task_id: cmd.task_id, slot_id: cmd.slot_id, now: q.now }))) {
    return { ok: false, reason: (yield* get(q.sql.known, cmd)) ? 'stale_slot' : 'not_found' };
  }
  // Merged is final: a merge found in the target by the background look (SPEC §11, landed.ts) between this
  // integrator's swap and its record is not recorded again — one task.integrated, one message, no follow-up.
  const current = yield* get<IntegrationRow>(q.sql.current, cmd);
  if (current?.state === 'merged') return { ok: true, integration: toIntegration(current), followup_id: null };
  let followup: string | null = null;
  if (cmd.followup)
    followup = (yield* insertTask({ sql: q.sql.tasks, now: q.now }, cmd.followup, { blockers: [], parent: null })).id;
  const r = (yield* get<IntegrationRow>(q.sql.record, recordValues(cmd, followup, q.now)))!;
  const messages = { sql: q.sql.messages, now: q.now };
  const note = resultNote(cmd);
  if (note) yield* insertNote(messages, note);
  yield* emit(integrationEvent(cmd, followup));
  // SPEC §11: a merge is when work with commits lands — its dependents may be ready now (task.ready).
  if (r.state === 'merged') yield* landed({ sql: q.sql.landed, now: q.now }, cmd.task_id, 'coord');
  const worker = yield* get<{ claimed_by: string | null; created_by: string }>(q.sql.worker, cmd);
  const told = toldMessage(r, worker ? (worker.claimed_by ?? worker.created_by) : null);
  if (told) yield* sendMessage(messages, told);
  return { ok: true, integration: toIntegration(r), followup_id: followup };
}

/** SPEC §15: a window's event, fenced like a result: only the live slot's holder appends it. */
function* recordWindow(q: W, cmd: RecordWindowCommand): Prog<{ recorded: boolean }> {
  if (!(yield* get(q.sql.windowHeld, { board: cmd.board, slot_id: cmd.slot_id, now: q.now })))
    return { recorded: false };
  yield* emit(windowEvent(cmd));
  return { recorded: true };
}

/** A person's approve (a merge held for review, or a task still pending, is merged at the integrator's next
 * look) or retry (a conflict, failed check or blocked task is pending again). */
function* decide(q: W, task_id: string, approver: string | null | false): Prog<PersonOutcome> {
  const r = yield* get<IntegrationRow>(approver === false ? q.sql.retry : q.sql.approve, { task_id, now: q.now });
  if (!r)
    return { ok: false, state: (yield* get<{ state: IntegrationState }>(q.sql.stateOf, { task_id }))?.state ?? 'none' };
  if (approver !== false) yield* emit(approvalEvent(r, approver));
  return { ok: true, integration: toIntegration(r) };
}

/** The port (core/integration/integration-ports.ts) over a store's runner. */
export const integrationPort = (r: Runner<IntegrationSql>): IntegrationStore => ({
  queueIntegration: (cmd) => r.write((q) => queueIntegration(q, cmd)),
  takeIntegrationSlot: (cmd) => r.write((q) => takeSlot(q, cmd)),
  releaseIntegrationSlot: async (board, slot_id) => ({
    released: (await r.write((q) => run(q.sql.releaseSlot, { board, slot_id }))) === 1,
  }),
  integrationQueue: (board) =>
    r.read(function* (sql) {
      return (yield* all<QueueRow>(sql.openQueue, { board })).map(toQueued);
    }),
  recordIntegration: (cmd) => r.write((q) => recordIntegration(q, cmd)),
  recordIntegrationWindow: (cmd) => r.write((q) => recordWindow(q, cmd)),
  approveIntegration: (task_id, agent) => r.write((q) => decide(q, task_id, agent)),
  retryIntegration: (task_id) => r.write((q) => decide(q, task_id, false)),
  integrationsOf: (ids) =>
    r.read(function* (sql) {
      return ids.length === 0 ? {} : integrationsById(yield* all<IntegrationRow>(sql.byIds, { ids }));
    }),
  integrationBoards: () =>
    r.read(function* (sql) {
      return (yield* all<{ board: string }>(sql.boards)).map((b) => b.board);
    }),
  integrationTaskIds: (query) =>
    r.read(function* (sql) {
      const p = { state: query.state, board: query.board ?? null, limit: query.limit };
      return (yield* all<{ task_id: string }>(sql.taskIds, p)).map((t) => t.task_id);
    }),
});
