import { newTaskId } from '../../core/ids.js';
import type { Task } from '../../core/model.js';
import type { CreateTaskCommand, Outcome } from '../../core/ports.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { taskCreated } from '../shared/task-events.js';
import { row } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

const INSERT = `INSERT INTO tasks (id, board, kind, title, body, priority, labels, for_agent, created_by, state,
                   created_at, updated_at, expires_at, idempotency_key, payload_hash)
  VALUES (@id, @board, @kind, @title, @body, @priority, @labels::text[], @for_agent, @created_by, 'queued',
          @now::bigint, @now::bigint, @expires_at::bigint, @idempotency_key, @payload_hash)
  ON CONFLICT DO NOTHING RETURNING *`;

const BY_KEY = 'SELECT * FROM tasks WHERE board = @board AND idempotency_key = @key';

/** Rule 7: the idempotency key names one intent; the same key with another payload is a conflict. */
export async function createTask(tx: Tx, cmd: CreateTaskCommand): Promise<Outcome<{ task: Task; created: boolean }>> {
  // Nothing inserted means a taken id (draw again) or, from a concurrent create with the
  // same key (the unique index made us wait for it), a key that now exists: look again.
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = await row<TaskRow>(tx.db, BY_KEY, { board: cmd.board, key: cmd.idempotency_key });
      if (existing) {
        if (existing.payload_hash !== cmd.payload_hash) {
          return { ok: false, reason: 'idempotency_conflict', task_id: existing.id };
        }
        return { ok: true, task: toTask(existing), created: false };
      }
    }
    const r = await row<TaskRow>(tx.db, INSERT, {
      id: newTaskId(),
      board: cmd.board,
      kind: cmd.kind,
      title: cmd.title,
      body: cmd.body,
      priority: cmd.priority,
      labels: cmd.labels,
      for_agent: cmd.for,
      created_by: cmd.created_by,
      now: tx.now,
      expires_at: tx.now + cmd.ttl_ms,
      idempotency_key: cmd.idempotency_key,
      payload_hash: cmd.payload_hash,
    });
    if (r) {
      appendEvent(tx, taskCreated(r));
      return { ok: true, task: toTask(r), created: true };
    }
  }
}
