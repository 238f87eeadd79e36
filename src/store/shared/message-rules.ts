/**
 * The rules of SPEC §12 both stores apply around their SQL: the task a message names, a new message's
 * values, the filters of a listing and of a delivery, and who may read one message.
 */

import type { DeliverCommand, ListMessagesQuery, SendMessageCommand } from '../../core/messages/message-ports.js';
import type { Message } from '../../core/model.js';
import type { Lost } from '../../core/ports.js';
import { newMessageId } from '../../core/shared/ids.js';
import type { TaskRow } from './rows.js';
import { rowVisibleTo } from './visibility.js';

/** A message about a task names one of its board that the sender may see; any other is not_found. */
export const linkedTaskRefusal = (task: TaskRow | undefined, cmd: SendMessageCommand): Lost | null =>
  !task || task.board !== cmd.board || !rowVisibleTo(task, cmd.from) ? { ok: false, reason: 'not_found' } : null;

/** A new message's row (a fresh id each try: a taken one is drawn again). */
export const messageValues = (cmd: SendMessageCommand, now: number) => ({
  id: newMessageId(),
  board: cmd.board,
  sender: cmd.from,
  to_agent: cmd.to,
  text: cmd.text,
  task_id: cmd.task_id,
  ack_required: cmd.ack_required,
  now,
  idempotency_key: cmd.idempotency_key,
  payload_hash: cmd.payload_hash,
});

/** A listing's filters; absent ones are null. */
export const listValues = (q: ListMessagesQuery) => ({
  agent: q.agent ?? null,
  board: q.board ?? null,
  task_id: q.task_id ?? null,
  unacked: q.unacked,
  limit: q.limit,
});

/** A delivery's filters. */
export const deliverValues = (cmd: DeliverCommand) => ({
  agent: cmd.agent,
  board: cmd.board,
  since: cmd.since ?? null,
  all: cmd.all,
  ids: cmd.ids ?? null,
  limit: cmd.limit,
});

/** One message as `agent` may read it: its sender's or a recipient's (anyone's without an agent). */
export const readableBy = (m: Message | undefined, agent: string | undefined): Message | null =>
  m && (agent === undefined || m.from === agent || m.receipts.some((r) => r.agent === agent)) ? m : null;
