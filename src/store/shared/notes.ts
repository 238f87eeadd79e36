/**
 * Notes on tasks (SPEC §12) of both stores: append-only, by anyone who can see the task, idempotent by key.
 * Programs (program.ts) over the statements of messages.ts's table (`<store>/messages-sql.ts`).
 */
import type { AddNoteCommand } from '../../core/messages/message-ports.js';
import type { Note, Task } from '../../core/model.js';
import type { Outcome } from '../../core/ports.js';
import { idempotencyConflict } from './idempotency.js';
import { type NoteRow, notedEvent, toNote } from './message-rows.js';
import type { MessagesSql } from './messages-sql.js';
import { type NoteDraftRow, noteOf, noteRefusal, noteValues, rideAlong } from './note-rules.js';
import { all, emit, get, type Prog, type Q } from './program.js';
import type { TaskRow } from './rows.js';

type W = Q<MessagesSql>;

/** One try at a note and its `task.noted` event: nothing when its id or key is taken. */
function* tryNote(q: W, n: NoteDraftRow, via?: string): Prog<NoteRow | undefined> {
  const r = yield* get<NoteRow>(q.sql.insertNote, noteValues(n, q.now));
  if (r) yield* emit(notedEvent(n.board, r, via));
  return r;
}

/** A note without a key, in the caller's transaction (a taken id is drawn again). */
export function* insertNote(q: W, n: NoteDraftRow, via?: string): Prog<Note> {
  for (;;) {
    const r = yield* tryNote(q, n, via);
    if (r) return toNote(r);
  }
}

export function* addNote(q: W, cmd: AddNoteCommand): Prog<Outcome<{ note: Note; created: boolean }>> {
  const task = yield* get<TaskRow>(q.sql.taskById, { id: cmd.task_id });
  const refused = noteRefusal(task, cmd);
  if (refused) return refused;
  // A concurrent note with the same key (PostgreSQL) makes the insert wait, then do nothing: look again.
  for (;;) {
    if (cmd.idempotency_key !== null) {
      const existing = yield* get<NoteRow>(q.sql.noteByKey, { board: task!.board, key: cmd.idempotency_key });
      if (existing) {
        const conflict = idempotencyConflict(existing, cmd.payload_hash, existing.task_id);
        return conflict ?? { ok: true, note: toNote(existing), created: false };
      }
    }
    const r = yield* tryNote(q, noteOf(task!, cmd));
    if (r) return { ok: true, note: toNote(r), created: true };
  }
}

export function* taskNotes(sql: MessagesSql, id: string, limit: number): Prog<{ notes: Note[]; count: number }> {
  const found = yield* all<NoteRow>(sql.notesOfTask, { id, limit });
  const n = yield* get<{ n: number }>(sql.countNotes, { id });
  return { notes: found.reverse().map(toNote), count: n?.n ?? 0 };
}

/**
 * A release, submit or cancel with a `note`: the note is written in the same transaction, and only
 * when the change happened (a replayed submit or a second cancel writes none).
 */
export function* withNote<T extends { task: Task }>(
  q: W,
  outcome: Outcome<T>,
  note: { text: string } | null | undefined,
  author: string | null,
  via: string,
  changed: boolean,
): Prog<Outcome<T>> {
  const draft = rideAlong(outcome, note, author, changed);
  if (draft) yield* insertNote(q, draft, via);
  return outcome;
}
