/**
 * Get-and-mark for the hooks (SPEC §10, §12): `coord prime` and the stop hook show the messages
 * waiting for an agent and record how they were shown. One HTTP call, no CLI loaded.
 *
 *   prime: pendingMessageLines(link, { agent, board, via: 'prime', all: true })
 *   stop:  pendingMessageLines(link, { agent, board, via: 'stop' })  — block only if lines is not empty
 *
 * `link` is a DaemonClient, or the hooks' light link (anything that POSTs JSON): a hook must not load
 * the route table and zod (test/architecture/hook-weight.test.ts), so then the one path is spelled out.
 */

import { PATHS } from '../api/paths.js';
import { messageLine } from '../core/messages/message-text.js';
import type { DeliveryVia, Message } from '../core/model.js';
import type { DaemonClient } from './daemon-client.js';

export interface PendingQuery {
  agent: string;
  board: string;
  via: DeliveryVia;
  /** Every unacknowledged message (prime), not only those never shown (stop: once per message). */
  all?: boolean;
  limit?: number;
  /** Record nothing (a look first: the stop hook records only what it shows). */
  peek?: boolean;
  /** Only these messages. */
  ids?: string[];
}

/** The hooks' link to the daemon (src/hooks/daemon.ts), as far as this call needs it. */
export interface JsonPoster {
  post<T>(path: string, body: unknown): Promise<{ status: number; body: T }>;
}

interface Pending {
  messages: Message[];
  unread: number;
}

export const PENDING_PATH = PATHS.messagesPending;

export async function pendingMessageLines(
  link: DaemonClient | JsonPoster,
  q: PendingQuery,
  now = Date.now(),
): Promise<{ lines: string[]; messages: Message[]; unread: number }> {
  const { messages, unread } = await pending(link, q);
  return { lines: messages.map((m) => messageLine(m, now)), messages, unread };
}

async function pending(link: DaemonClient | JsonPoster, q: PendingQuery): Promise<Pending> {
  if ('call' in link) {
    const { operations } = await import('../core/operations.js');
    return link.call(operations.pendingMessages, q);
  }
  const res = await link.post<Pending & { error?: { code?: string; message?: string } }>(PENDING_PATH, q);
  if (res.status !== 200 || !Array.isArray(res.body?.messages)) {
    throw new Error(`${PENDING_PATH}: HTTP ${res.status} ${res.body?.error?.message ?? ''}`.trim());
  }
  return { messages: res.body.messages, unread: res.body.unread ?? res.body.messages.length };
}
