import type { Task } from '../../core/model.js';
import type { CreateTaskCommand, Outcome } from '../../core/ports.js';
import { type Links, taskValues } from '../shared/deps-rows.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { taskCreated } from '../shared/task-events.js';
import { checkLinks, insertEdges } from './deps.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const INSERT = `INSERT INTO tasks (id, board, kind, title, body, priority, labels, for_agent, created_by, state,
                   created_at, updated_at, expires_at, idempotency_key, payload_hash, blocked_by, blockers_open, parent)
  VALUES (@id, @board, @kind, @title, @body, @priority, @labels, @for_agent, @created_by, 'queued',
          @now, @now, @expires_at, @idempotency_key, @payload_hash, @blocked_by, @blockers_open, @parent)
  ON CONFLICT DO NOTHING RETURNING *`;

/** Rule 7: the idempotency key names one intent; the same key with another payload is a conflict. */
export function createTask(tx: Tx, cmd: CreateTaskCommand): Outcome<{ task: Task; created: boolean }> {
  if (cmd.idempotency_key !== null) {
    const existing = stmt(tx.db, 'SELECT * FROM tasks WHERE board = ? AND idempotency_key = ?').get(
      cmd.board,
      cmd.idempotency_key,
    ) as TaskRow | undefined;
    if (existing) {
      const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.id);
      return conflict ?? { ok: true, task: toTask(existing), created: false };
    }
  }
  // SPEC §11: every blocker and the parent are checked before anything is written.
  const checked = checkLinks(tx, cmd.board, cmd.created_by, cmd.blocked_by, cmd.parent);
  if (!checked.ok) return checked;
  return { ok: true, task: toTask(insertTask(tx, cmd, checked.links)), created: true };
}

/** Inserts a checked task with its edges, counts it on its parent, and records task.created. */
export function insertTask(tx: Tx, cmd: Omit<CreateTaskCommand, 'blocked_by' | 'parent'>, links: Links): TaskRow {
  // A random 8-char id collides rarely; ON CONFLICT DO NOTHING lets us simply draw again.
  for (;;) {
    const v = taskValues(cmd, links, tx.now);
    const row = stmt(tx.db, INSERT).get({
      ...v,
      labels: JSON.stringify(v.labels),
      blocked_by: JSON.stringify(v.blocked_by),
    }) as TaskRow | undefined;
    if (row) {
      insertEdges(tx, row.id, links.blockers);
      if (row.parent !== null) {
        stmt(tx.db, 'UPDATE tasks SET children_total = children_total + 1 WHERE id = ?').run(row.parent);
      }
      appendEvent(tx, taskCreated(row, links));
      return row;
    }
  }
}
