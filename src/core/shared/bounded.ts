/**
 * Answers stay small whatever the board holds (issue 25, hole 10): a list an
 * answer carries is cut to its first items and says how many there were, so
 * a broadcast to 5,000 invented names, a board of 5,000 agents or a cycle
 * through 5,000 tasks answers in a few kilobytes, not hundreds.
 */
import type { Message } from '../model.js';

/** How many items of one list an answer carries. */
export const ANSWER_LIST_MAX = 50;

/** The first `max` items. */
export const firstOf = <T>(items: readonly T[], max = ANSWER_LIST_MAX): T[] => items.slice(0, max);

/** `a → b → c waits for itself`, or with a long cycle `a → b → … → z (5000 tasks)`: the first and last ids named. */
export function cycleText(cycle: readonly string[], shown = 10): string {
  if (cycle.length <= shown) return cycle.join(' → ');
  return `${cycle.slice(0, shown - 1).join(' → ')} → … → ${cycle.at(-1)} (${cycle.length - 1} tasks)`;
}

/**
 * A message as an answer carries it: its first receipts, and when there were
 * more (a broadcast to every agent on a busy board), how many recipients it
 * has and how many of them it reached and were acknowledged.
 */
export function boundMessage(m: Message): Message {
  if (m.receipts.length <= ANSWER_LIST_MAX) return m;
  return {
    ...m,
    receipts: firstOf(m.receipts),
    receipt_counts: {
      recipients: m.receipts.length,
      delivered: m.receipts.filter((r) => r.delivered_at !== null).length,
      acked: m.receipts.filter((r) => r.acked_at !== null).length,
    },
  };
}
