import { newTaskId } from '../../core/ids.js';
import type { Task } from '../../core/model.js';
import type { CreateTaskCommand, Outcome } from '../../core/ports.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { taskCreated } from '../shared/task-events.js';
import { appendEvent, stmt, type Tx } from './tx.js';

const INSERT = `INSERT INTO tasks (id, board, kind, title, body, priority, labels, for_agent, created_by, state,
                   created_at, updated_at, expires_at, idempotency_key, payload_hash)
  VALUES (@id, @board, @kind, @title, @body, @priority, @labels, @for_agent, @created_by, 'queued',
          @now, @now, @expires_at, @idempotency_key, @payload_hash)
  ON CONFLICT DO NOTHING RETURNING *`;

/** Rule 7: the idempotency key names one intent; the same key with another payload is a conflict. */
export function createTask(tx: Tx, cmd: CreateTaskCommand): Outcome<{ task: Task; created: boolean }> {
  if (cmd.idempotency_key !== null) {
    const existing = stmt(tx.db, 'SELECT * FROM tasks WHERE board = ? AND idempotency_key = ?').get(
      cmd.board,
      cmd.idempotency_key,
    ) as TaskRow | undefined;
    if (existing) {
      if (existing.payload_hash !== cmd.payload_hash) {
        return { ok: false, reason: 'idempotency_conflict', task_id: existing.id };
      }
      return { ok: true, task: toTask(existing), created: false };
    }
  }
  // A random 8-char id collides rarely; ON CONFLICT DO NOTHING lets us simply draw again.
  for (;;) {
    const row = stmt(tx.db, INSERT).get({
      id: newTaskId(),
      board: cmd.board,
      kind: cmd.kind,
      title: cmd.title,
      body: cmd.body,
      priority: cmd.priority,
      labels: JSON.stringify(cmd.labels),
      for_agent: cmd.for,
      created_by: cmd.created_by,
      now: tx.now,
      expires_at: tx.now + cmd.ttl_ms,
      idempotency_key: cmd.idempotency_key,
      payload_hash: cmd.payload_hash,
    }) as TaskRow | undefined;
    if (row) {
      appendEvent(tx, taskCreated(row));
      return { ok: true, task: toTask(row), created: true };
    }
  }
}
