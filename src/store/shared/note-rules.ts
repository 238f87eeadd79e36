/** The rules of SPEC §12's notes both stores apply around their SQL: who may note, a note's values, when a note rides along. */

import type { AddNoteCommand } from '../../core/messages/message-ports.js';
import type { Task } from '../../core/model.js';
import type { Lost, Outcome } from '../../core/ports.js';
import { newNoteId } from '../../core/shared/ids.js';
import type { TaskRow } from './rows.js';
import { rowVisibleTo } from './visibility.js';

/** A note as the insert takes it. */
export interface NoteDraftRow {
  task_id: string;
  board: string;
  agent: string;
  text: string;
  key: string | null;
  hash: string;
}

/** Anyone who can see the task may note it; otherwise not_found. */
export const noteRefusal = (task: TaskRow | undefined, cmd: AddNoteCommand): Lost | null =>
  !task || !rowVisibleTo(task, cmd.agent) ? { ok: false, reason: 'not_found' } : null;

/** The note `cmd` adds to `task`. */
export const noteOf = (task: TaskRow, cmd: AddNoteCommand): NoteDraftRow => ({
  task_id: task.id,
  board: task.board,
  agent: cmd.agent,
  text: cmd.text,
  key: cmd.idempotency_key,
  hash: cmd.payload_hash,
});

/** A new note's row (a fresh id each try). */
export const noteValues = (n: NoteDraftRow, now: number) => ({
  id: newNoteId(),
  task_id: n.task_id,
  board: n.board,
  agent: n.agent,
  text: n.text,
  at: now,
  idempotency_key: n.key,
  payload_hash: n.hash,
});

/**
 * The note a release, submit or cancel writes in its transaction, or null: only when the change happened (a
 * replayed submit or a second cancel writes none) and someone wrote it.
 */
export function rideAlong<T extends { task: Task }>(
  outcome: Outcome<T>,
  note: { text: string } | null | undefined,
  author: string | null,
  changed: boolean,
): NoteDraftRow | null {
  if (!outcome.ok || !note || !author || !changed) return null;
  const t = outcome.task;
  return { task_id: t.id, board: t.board, agent: author, text: note.text, key: null, hash: '' };
}
