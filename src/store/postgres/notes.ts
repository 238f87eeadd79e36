/** Notes on tasks (SPEC §12), the twin of sqlite/notes.ts. */

import { newNoteId } from '../../core/ids.js';
import type { AddNoteCommand } from '../../core/message-ports.js';
import type { Note, Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type NoteRow, notedEvent, toNote } from '../shared/message-rows.js';
import type { TaskRow } from '../shared/rows.js';
import { rowVisibleTo } from '../shared/visibility.js';
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

// A concurrent note with the same key makes this wait on the unique index, then do nothing: look again.
const INSERT = `INSERT INTO notes (id, task_id, board, agent, text, at, idempotency_key, payload_hash)
  VALUES (@id, @task_id, @board, @agent, @text, @at::bigint, @idempotency_key, @payload_hash)
  ON CONFLICT DO NOTHING RETURNING *`;
const BY_KEY = 'SELECT * FROM notes WHERE board = @board AND idempotency_key = @key';

export async function insertNote(
  tx: Tx,
  n: { task_id: string; board: string; agent: string; text: string; key: string | null; hash: string },
  via?: string,
): Promise<NoteRow | undefined> {
  const r = await row<NoteRow>(tx.db, INSERT, {
    id: newNoteId(),
    task_id: n.task_id,
    board: n.board,
    agent: n.agent,
    text: n.text,
    at: tx.now,
    idempotency_key: n.key,
    payload_hash: n.hash,
  });
  if (r) appendEvent(tx, notedEvent(n.board, r, via));
  return r;
}

export async function addNote(tx: Tx, cmd: AddNoteCommand): Promise<Outcome<{ note: Note; created: boolean }>> {
  const task = await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id: cmd.task_id });
  if (!task || !rowVisibleTo(task, cmd.agent)) {
    return { ok: false, reason: 'not_found' };
  }
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = await row<NoteRow>(tx.db, BY_KEY, { board: task.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.task_id);
        return conflict ?? { ok: true, note: toNote(existing), created: false };
      }
    }
    const r = await insertNote(tx, {
      task_id: task.id,
      board: task.board,
      agent: cmd.agent,
      text: cmd.text,
      key: cmd.idempotency_key,
      hash: cmd.payload_hash,
    });
    if (r) return { ok: true, note: toNote(r), created: true };
  }
}

export async function taskNotes(
  db: Queryable,
  taskId: string,
  limit: number,
): Promise<{ notes: Note[]; count: number }> {
  const found = await rows<NoteRow>(db, 'SELECT * FROM notes WHERE task_id = @id ORDER BY seq DESC LIMIT @limit', {
    id: taskId,
    limit,
  });
  const n = await row<{ n: number }>(db, 'SELECT count(*)::int AS n FROM notes WHERE task_id = @id', { id: taskId });
  return { notes: found.reverse().map(toNote), count: n?.n ?? 0 };
}

/** A release, submit or cancel's note, in the same transaction, only when the change happened. */
export async function withNote<T extends { task: Task }>(
  tx: Tx,
  outcome: Outcome<T>,
  note: { text: string } | null | undefined,
  author: string | null,
  via: string,
  changed: boolean,
): Promise<Outcome<T>> {
  if (!outcome.ok || !note || !author || !changed) return outcome;
  const t = outcome.task;
  await insertNote(tx, { task_id: t.id, board: t.board, agent: author, text: note.text, key: null, hash: '' }, via);
  return outcome;
}
