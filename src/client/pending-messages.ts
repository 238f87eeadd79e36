/**
 * Get-and-mark for the hooks (SPEC §10, §12): `coord prime` and the stop hook show the messages
 * waiting for an agent and record how they were shown. One HTTP call, no CLI loaded.
 *
 *   prime: pendingMessageLines(client, { agent, board, via: 'prime', all: true })
 *   stop:  pendingMessageLines(client, { agent, board, via: 'stop' })  — block only if lines is not empty
 */
import { messageLine } from '../core/message-text.js';
import type { DeliveryVia, Message } from '../core/model.js';
import { operations } from '../core/operations.js';
import type { DaemonClient } from './daemon-client.js';

export interface PendingQuery {
  agent: string;
  board: string;
  via: DeliveryVia;
  /** Every unacknowledged message (prime), not only those never shown (stop: once per message). */
  all?: boolean;
  limit?: number;
}

export async function pendingMessageLines(
  client: DaemonClient,
  q: PendingQuery,
  now = Date.now(),
): Promise<{ lines: string[]; messages: Message[]; unread: number }> {
  const { messages, unread } = await client.call(operations.pendingMessages, q);
  return { lines: messages.map((m) => messageLine(m, now)), messages, unread };
}
