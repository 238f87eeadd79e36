/**
 * notify and resume (SPEC §19): the client's own notification hook says its agent waits for a person — a
 * permission prompt, a question, an idle prompt — and its next prompt, tool call or turn's end says it goes
 * on. The daemon keeps it in memory for `coord attention` (and `serve --notify`). Never blocks the client:
 * a daemon that is down or refuses is no reason to stop an agent.
 */
import { PATHS } from '../api/paths.js';
import type { HookDaemon } from './daemon.js';

export async function tellWaiting(
  daemon: () => HookDaemon,
  said: { agent: string; board: string; waiting: string | null },
): Promise<void> {
  try {
    await daemon().post(PATHS.attentionWaiting, said);
  } catch {
    // Down, busy or refusing: the agent goes on; `coord attention` simply does not know.
  }
}
