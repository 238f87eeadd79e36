import type { Task } from '../../core/model.js';
import type { CreateTaskCommand, Outcome } from '../../core/ports.js';
import { type Links, taskValues } from '../shared/deps-rows.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { taskCreated } from '../shared/task-events.js';
import { checkLinks, insertEdges } from './deps.js';
import { row } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const INSERT = `INSERT INTO tasks (id, board, kind, title, body, priority, labels, for_agent, created_by, state,
                   created_at, updated_at, expires_at, idempotency_key, payload_hash, blocked_by, blockers_open, parent)
  VALUES (@id, @board, @kind, @title, @body, @priority, @labels::text[], @for_agent, @created_by, 'queued',
          @now::bigint, @now::bigint, @expires_at::bigint, @idempotency_key, @payload_hash,
          @blocked_by::text[], @blockers_open::int, @parent)
  ON CONFLICT DO NOTHING RETURNING *`;

const BY_KEY = 'SELECT * FROM tasks WHERE board = @board AND idempotency_key = @key';

/** Rule 7: the idempotency key names one intent; the same key with another payload is a conflict. */
export async function createTask(tx: Tx, cmd: CreateTaskCommand): Promise<Outcome<{ task: Task; created: boolean }>> {
  // SPEC §11: the blockers and the parent are locked and checked before anything is written.
  let links: Links | null = null;
  // Nothing inserted means a taken id (draw again) or, from a concurrent create with the
  // same key (the unique index made us wait for it), a key that now exists: look again.
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = await row<TaskRow>(tx.db, BY_KEY, { board: cmd.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.id);
        return conflict ?? { ok: true, task: toTask(existing), created: false };
      }
    }
    if (links === null) {
      const checked = await checkLinks(tx, cmd.board, cmd.created_by, cmd.blocked_by, cmd.parent);
      if (!checked.ok) return checked;
      links = checked.links;
    }
    const r = await tryInsert(tx, cmd, links);
    if (r) return { ok: true, task: toTask(r), created: true };
  }
}

/** Inserts a checked task with its edges, counts it on its parent, and records task.created; null: id or key taken. */
async function tryInsert(
  tx: Tx,
  cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>,
  links: Links,
): Promise<TaskRow | undefined> {
  const r = await row<TaskRow>(tx.db, INSERT, taskValues(cmd, links, tx.now));
  if (!r) return undefined;
  await insertEdges(tx, r.id, links.blockers);
  if (r.parent !== null) {
    await row(tx.db, 'UPDATE tasks SET children_total = children_total + 1 WHERE id = @id', { id: r.parent });
  }
  appendEvent(tx, taskCreated(r, links));
  return r;
}

/** A plan's task (no idempotency key of its own): drawn again until its random id is free. */
export async function insertTask(
  tx: Tx,
  cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>,
  links: Links,
): Promise<TaskRow> {
  for (;;) {
    const r = await tryInsert(tx, cmd, links);
    if (r) return r;
  }
}
