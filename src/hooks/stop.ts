/**
 * stop (SPEC §10, §12): when the agent would stop while a message, a handoff
 * or a task for it alone has arrived since it last looked, the stop is blocked
 * once with those lines. Messages are "never shown before" by the daemon's
 * receipts (get-and-mark `via: stop`: a message shown by the inbox, a push or
 * prime is not news); tasks already shown — here or by a push into a live Claude
 * Code session — are remembered in `<state>/hooks/` (state-dir/shown-tasks.ts).
 * So the same item never blocks twice and two agents can never loop each other.
 */

import { PATHS, withQuery } from '../api/paths.js';
import { pendingMessageLines } from '../client/pending-messages.js';
import { markTasksShown, shownTasks } from '../state-dir/shown-tasks.js';
import type { HookDaemon } from './daemon.js';
import { DaemonDown, query } from './daemon.js';
import type { Verdict } from './guard-mode.js';
import type { HookInput } from './input.js';

interface Inbox {
  tasks: { id: string; title: string; for: string | null; created_by: string; kind: string }[];
}

const MAX_LINES = 5;
/** Messages shown (and so recorded) at one stop: the inbox's ten, each line within 140 bytes. */
const MAX_MESSAGES = 10;

export async function stopCheck(
  input: HookInput,
  who: { agent: string; board: string; stateDir: string },
  daemon: () => HookDaemon,
): Promise<Verdict> {
  // The client is already continuing because of a stop hook: never hold it twice in a row.
  if (input.stop_hook_active === true) return { kind: 'allow' };
  let inbox: Inbox;
  let mail: { lines: string[]; unread: number };
  try {
    const d = daemon();
    // First: the inbox would record these messages as shown `via: inbox`, and they would never be news here.
    mail = await stopMessages(d, who.agent, who.board);
    inbox = (await d.get<Inbox>(withQuery(PATHS.inbox, query({ agent: who.agent, board: who.board })))).body;
  } catch (e) {
    if (e instanceof DaemonDown) return { kind: 'allow' };
    throw e;
  }
  const mine = (inbox.tasks ?? []).filter((t) => t.for === who.agent);
  const seen = shownTasks(who.stateDir, who.agent, who.board);
  const fresh = mine.filter((t) => !seen.has(t.id));
  if (fresh.length === 0 && mail.lines.length === 0) return { kind: 'allow' };
  markTasksShown(
    who.stateDir,
    who.agent,
    who.board,
    fresh.map((t) => t.id),
  );
  const reason: string[] = [];
  if (mail.lines.length > 0) {
    const n = mail.lines.length;
    reason.push(`coord: ${n === 1 ? 'a message' : `${n} messages`} for you since you last looked:`, ...mail.lines);
    // A full page may have more never shown behind it (the others unacknowledged were shown before).
    if (n === MAX_MESSAGES && mail.unread > n) reason.push('(more may be waiting: list_messages)');
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
  return { kind: 'continue', reason: reason.join('\n') };
}

/** The messages never shown before, now recorded as shown by the stop hook; none when the daemon cannot say. */
async function stopMessages(d: HookDaemon, agent: string, board: string): Promise<{ lines: string[]; unread: number }> {
  try {
    return await pendingMessageLines(d, { agent, board, via: 'stop', limit: MAX_MESSAGES });
  } catch (e) {
    if (e instanceof DaemonDown) throw e;
    return { lines: [], unread: 0 }; // a daemon without messages (older): tasks only
  }
}
