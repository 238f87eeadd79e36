/**
 * The store port for notes and messages (SPEC §12), part of `Store`. Each
 * method is one transaction; reads that find nothing to record never write.
 */
import type { DeliveryVia, Message, Note } from '../model.js';
import type { Outcome } from '../ports.js';

export interface AddNoteCommand {
  task_id: string;
  agent: string;
  text: string;
  idempotency_key: string | null;
  /** sha256 of the canonical note payload (task, author, text). */
  payload_hash: string;
}

/** A note written in the same transaction as a release, submit or cancel. */
export interface NoteDraft {
  text: string;
}

export interface SendMessageCommand {
  board: string;
  from: string;
  to: string;
  /** Resolved by core: `to` itself, or for `*` every agent known on the board at send time. */
  recipients: string[];
  text: string;
  task_id: string | null;
  ack_required: boolean;
  idempotency_key: string | null;
  payload_hash: string;
}

export interface ListMessagesQuery {
  /** Undefined: the operator view (every message, every receipt). */
  agent?: string | undefined;
  box: 'inbox' | 'sent';
  board?: string | undefined;
  task_id?: string | undefined;
  unacked: boolean;
  limit: number;
}

/**
 * Show an agent its messages and record it: delivery (first showing wins, never overwritten),
 * the inbox cursor it was shown at, and — with `since` — the acknowledgement of messages
 * without ack_required that an inbox at or before `since` already showed.
 */
export interface DeliverCommand {
  agent: string;
  board: string;
  via: DeliveryVia;
  /** true: every unacknowledged message; false: only those never shown. */
  all: boolean;
  /** Record nothing. */
  peek: boolean;
  ids?: string[] | undefined;
  /** The inbox's `since`: acknowledges the no-ack messages an earlier inbox showed. */
  since?: number | undefined;
  /** The cursor of the inbox view these are shown with. */
  cursor?: number | undefined;
  limit: number;
}

export interface NotesAndMessages {
  /** not_found when the task is not visible to the agent; idempotency_conflict (task_id = note id) on a changed replay. */
  addNote(cmd: AddNoteCommand): Promise<Outcome<{ note: Note; created: boolean }>>;
  /** The last `limit` notes of a task, oldest first, and the count. Never writes. */
  taskNotes(task_id: string, limit: number): Promise<{ notes: Note[]; count: number }>;
  /** not_found when task_id is given and not visible to the sender or on another board. */
  sendMessage(cmd: SendMessageCommand): Promise<Outcome<{ message: Message; created: boolean }>>;
  /** Newest first. Never writes. */
  listMessages(q: ListMessagesQuery): Promise<Message[]>;
  /** Unread first, then oldest first; `unread` counts every unacknowledged one. Writes only when it records something. */
  deliverMessages(cmd: DeliverCommand): Promise<{ messages: Message[]; unread: number }>;
  /** not_found unless the agent is a recipient; `acked` is false when it was already acknowledged. */
  ackMessage(cmd: { message_id: string; agent: string }): Promise<Outcome<{ message: Message; acked: boolean }>>;
  /** One message as `agent` may see it (sender or recipient), else null. Never writes. */
  getMessage(message_id: string, agent: string | undefined): Promise<Message | null>;
  /** Unacknowledged messages per recipient. Never writes. */
  unreadCounts(board?: string): Promise<{ agent: string; unread: number }[]>;
}
