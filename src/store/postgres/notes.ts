/** Notes on tasks (SPEC §12), the twin of sqlite/notes.ts. */

import type { AddNoteCommand } from '../../core/messages/message-ports.js';
import type { Note, Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type NoteRow, notedEvent, toNote } from '../shared/message-rows.js';
import { type NoteDraftRow, noteOf, noteRefusal, noteValues, rideAlong } from '../shared/note-rules.js';
import type { TaskRow } from '../shared/rows.js';
import type { Queryable } from './database.js';
import { row, rows } from './sql.js';
import { appendEvent, type Tx } from './tx.js';

// A concurrent note with the same key makes this wait on the unique index, then do nothing: look again.
const INSERT = `INSERT INTO notes (id, task_id, board, agent, text, at, idempotency_key, payload_hash)
  VALUES (@id, @task_id, @board, @agent, @text, @at::bigint, @idempotency_key, @payload_hash)
  ON CONFLICT DO NOTHING RETURNING *`;
const BY_KEY = 'SELECT * FROM notes WHERE board = @board AND idempotency_key = @key';

export async function insertNote(tx: Tx, n: NoteDraftRow, via?: string): Promise<NoteRow | undefined> {
  const r = await row<NoteRow>(tx.db, INSERT, noteValues(n, tx.now));
  if (r) appendEvent(tx, notedEvent(n.board, r, via));
  return r;
}

export async function addNote(tx: Tx, cmd: AddNoteCommand): Promise<Outcome<{ note: Note; created: boolean }>> {
  const task = await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id: cmd.task_id });
  const refused = noteRefusal(task, cmd);
  if (refused) return refused;
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = await row<NoteRow>(tx.db, BY_KEY, { board: task!.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.task_id);
        return conflict ?? { ok: true, note: toNote(existing), created: false };
      }
    }
    const r = await insertNote(tx, noteOf(task!, cmd));
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
  const draft = rideAlong(outcome, note, author, changed);
  if (draft) await insertNote(tx, draft, via);
  return outcome;
}
