/**
 * stop (SPEC §10, §12): when the agent would stop while a message, a handoff
 * or a task for it alone has arrived since it last looked, the stop is blocked
 * once with those lines. Messages are "never shown before" by the daemon's
 * receipts (get-and-mark `via: stop`: a message shown by the inbox, a push or
 * prime is not news); tasks already shown — here or by a push into a live Claude
 * Code session — are remembered in `<state>/hooks/` (state-dir/shown-tasks.ts).
 * So the same item never blocks twice and two agents can never loop each other. The rule is core's
 * (core/messages/stop-news.ts), shared with the daemon's `http` stop hook.
 */

import { PATHS, withQuery } from '../api/paths.js';
import { pendingMessageLines } from '../client/pending-messages.js';
import { messageLine } from '../core/messages/message-text.js';
import { STOP_MAX_MESSAGES, type StopFacts, stopMail, stopNews } from '../core/messages/stop-news.js';
import { markTasksShown, shownTasks } from '../state-dir/shown-tasks.js';
import type { HookDaemon } from './daemon.js';
import { DaemonDown, query } from './daemon.js';
import type { Verdict } from './guard-mode.js';
import type { HookInput } from './input.js';

export async function stopCheck(
  input: HookInput,
  who: { agent: string; board: string; stateDir: string },
  daemon: () => HookDaemon,
): Promise<Verdict> {
  // The client is already continuing because of a stop hook: never hold it twice in a row.
  if (input.stop_hook_active === true) return { kind: 'allow' };
  let inbox: { tasks?: StopFacts['tasks'] };
  let mail: { lines: string[]; unread: number };
  try {
    const d = daemon();
    // First: the inbox would record these messages as shown `via: inbox`, and they would never be news here.
    mail = await stopMessages(d, who.agent, who.board);
    inbox = (
      await d.get<{ tasks?: StopFacts['tasks'] }>(withQuery(PATHS.inbox, query({ agent: who.agent, board: who.board })))
    ).body;
  } catch (e) {
    if (e instanceof DaemonDown) return { kind: 'allow' };
    throw e;
  }
  const news = stopNews({
    agent: who.agent,
    mail,
    tasks: inbox.tasks ?? [],
    seen: shownTasks(who.stateDir, who.agent, who.board),
  });
  markTasksShown(who.stateDir, who.agent, who.board, news.shown);
  return news.reason === null ? { kind: 'allow' } : { kind: 'continue', reason: news.reason };
}

/**
 * The messages never shown before that hold a stop (core's worthATurn), now recorded as shown by the stop hook;
 * none when the daemon cannot say. A look first, so what is not shown is not recorded as shown.
 */
async function stopMessages(d: HookDaemon, agent: string, board: string): Promise<{ lines: string[]; unread: number }> {
  try {
    const q = { agent, board, via: 'stop' as const, limit: STOP_MAX_MESSAGES };
    const mail = await stopMail((more) => pendingMessageLines(d, { ...q, ...more }));
    const now = Date.now();
    return { lines: mail.messages.map((m) => messageLine(m, now)), unread: mail.unread };
  } catch (e) {
    if (e instanceof DaemonDown) throw e;
    return { lines: [], unread: 0 }; // a daemon without messages (older): tasks only
  }
}
