/**
 * SPEC §10, §12 the stop hook's rule, one for every door (the command hook, hooks/stop.ts; the daemon's `http`
 * hook route, server/http/hooks.ts): when the agent would stop while a message never shown, or a task for it
 * alone not yet shown, has arrived, the stop is held once with those lines. Pure: each door reads the messages
 * (recorded `via: stop` as it reads them), the inbox and the tasks already shown, and records what it shows.
 */

const MAX_LINES = 5;

/**
 * Whether a message never shown is worth a model turn — holding a stop, or pushed into a live Claude Code session
 * (client/claude-push.ts), where it starts one: every message is but coord's own notices that ask nothing (the
 * integrator's "#k3x9 merged into main as 3f2a1c" to the agent who did the work, which often lands while that
 * agent finishes: a turn for it would cost a model call for nothing). They stay in the inbox; a conflict or a failed
 * check comes with a follow-up task for the agent, which holds the stop as a task for it alone.
 */
export const worthATurn = (m: { from: string; ack_required: boolean }): boolean => m.from !== 'coord' || m.ack_required;
/**
 * The messages a stop shows: a look first (`peek`), then only those worth a turn are read again by id, which records
 * them as shown `via: stop` — what is not shown is not recorded. `read` is the door's way to pending_messages.
 */
export async function stopMail<
  M extends { id: string; from: string; ack_required: boolean },
  R extends { messages: M[] },
>(read: (q: { peek?: true; ids?: string[] }) => Promise<R>): Promise<R> {
  const looked = await read({ peek: true });
  const ids = looked.messages.filter(worthATurn).map((m) => m.id);
  return ids.length === 0 ? { ...looked, messages: [] } : read({ ids });
}

/** Messages shown (and so recorded) at one stop: the inbox's ten, each line within 140 bytes. */
export const STOP_MAX_MESSAGES = 10;

export interface StopFacts {
  agent: string;
  /** The messages' lines never shown before, and how many are unacknowledged in all. */
  mail: { lines: string[]; unread: number };
  /** The inbox's tasks. */
  tasks: { id: string; title: string; for: string | null; created_by: string; kind: string }[];
  /** The ids of the tasks for this agent shown to it already (state-dir/shown-tasks.ts). */
  seen: ReadonlySet<string>;
}

/** Why the agent should not stop yet (null: let it stop), and the task ids this shows it. */
export function stopNews(f: StopFacts): { reason: string | null; shown: string[] } {
  const fresh = f.tasks.filter((t) => t.for === f.agent && !f.seen.has(t.id));
  if (fresh.length === 0 && f.mail.lines.length === 0) return { reason: null, shown: [] };
  const reason: string[] = [];
  if (f.mail.lines.length > 0) {
    const n = f.mail.lines.length;
    reason.push(`coord: ${n === 1 ? 'a message' : `${n} messages`} for you since you last looked:`, ...f.mail.lines);
    // A full page may have more never shown behind it (the others unacknowledged were shown before).
    if (n === STOP_MAX_MESSAGES && f.mail.unread > n) reason.push('(more may be waiting: list_messages)');
    reason.push('Act on them (reply with send_message, ack_message when asked to), before you stop.');
  }
  if (fresh.length > 0) {
    const lines = fresh
      .slice(0, MAX_LINES)
      .map((t) => `#${t.id} ${t.kind} from ${t.created_by}: ${t.title.slice(0, 80)}`);
    const more = fresh.length > MAX_LINES ? [`…and ${fresh.length - MAX_LINES} more (inbox)`] : [];
    reason.push(
      `coord: ${fresh.length === 1 ? 'a task arrived' : `${fresh.length} tasks arrived`} for you alone since you last looked:`,
      ...lines,
      ...more,
      'claim_task it and do it, or release_task it to another agent, before you stop.',
    );
  }
  return { reason: reason.join('\n'), shown: fresh.map((t) => t.id) };
}
