/** Notes on tasks (SPEC §12): append-only, by anyone who can see the task, idempotent by key. */

import type { AddNoteCommand } from '../../core/messages/message-ports.js';
import type { Note, Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type NoteRow, notedEvent, toNote } from '../shared/message-rows.js';
import { type NoteDraftRow, noteOf, noteRefusal, noteValues, rideAlong } from '../shared/note-rules.js';
import type { TaskRow } from '../shared/rows.js';
import type { Db } from './database.js';
import { appendEvent, stmt, type Tx } from './tx.js';

// seq: the next number, safe inside the write transaction (BEGIN IMMEDIATE: one writer at a time).
const INSERT = `INSERT INTO notes (id, seq, task_id, board, agent, text, at, idempotency_key, payload_hash)
  VALUES (@id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM notes), @task_id, @board, @agent, @text, @at,
          @idempotency_key, @payload_hash) ON CONFLICT (id) DO NOTHING RETURNING *`;

/** Inserts a note and its `task.noted` event in the caller's transaction. */
export function insertNote(tx: Tx, n: NoteDraftRow, via?: string): Note {
  for (;;) {
    const row = stmt(tx.db, INSERT).get(noteValues(n, tx.now)) as NoteRow | undefined;
    if (row) {
      appendEvent(tx, notedEvent(n.board, row, via));
      return toNote(row);
    }
  }
}

export function addNote(tx: Tx, cmd: AddNoteCommand): Outcome<{ note: Note; created: boolean }> {
  const task = stmt(tx.db, 'SELECT * FROM tasks WHERE id = ?').get(cmd.task_id) as TaskRow | undefined;
  const refused = noteRefusal(task, cmd);
  if (refused) return refused;
  if (cmd.idempotency_key !== null) {
    const existing = stmt(tx.db, 'SELECT * FROM notes WHERE board = ? AND idempotency_key = ?').get(
      task!.board,
      cmd.idempotency_key,
    ) as NoteRow | undefined;
    if (existing) {
      const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.task_id);
      return conflict ?? { ok: true, note: toNote(existing), created: false };
    }
  }
  return { ok: true, note: insertNote(tx, noteOf(task!, cmd)), created: true };
}

export function taskNotes(db: Db, taskId: string, limit: number): { notes: Note[]; count: number } {
  const rows = stmt(db, 'SELECT * FROM notes WHERE task_id = ? ORDER BY seq DESC LIMIT ?').all(
    taskId,
    limit,
  ) as NoteRow[];
  const count = (stmt(db, 'SELECT count(*) AS n FROM notes WHERE task_id = ?').get(taskId) as { n: number }).n;
  return { notes: rows.reverse().map(toNote), count };
}

/**
 * A release, submit or cancel with a `note`: the note is written in the same transaction, and only
 * when the change happened (a replayed submit or a second cancel writes none).
 */
export function withNote<T extends { task: Task }>(
  tx: Tx,
  outcome: Outcome<T>,
  note: { text: string } | null | undefined,
  author: string | null,
  via: string,
  changed: boolean,
): Outcome<T> {
  const draft = rideAlong(outcome, note, author, changed);
  if (draft) insertNote(tx, draft, via);
  return outcome;
}
