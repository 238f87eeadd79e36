/**
 * pre-edit (SPEC §10): before a client's write tool runs, the paths it would write become the edit's requests
 * (state-dir/board-name.ts `editRequestsOf`, as every door makes them) and the daemon decides each in one round trip
 * (decide_edit, one transaction; core/edits/edit-request.ts `decideEdits` makes the one answer): a path held by
 * another agent blocks the call with `lock_conflict: …`; otherwise this agent now holds (or keeps) an
 * auto-lock on them. This door only reads its input and puts the answer in a Verdict (answer.ts: the client's
 * words), and says what a daemon that is down or busy means under COORD_GUARD.
 */
import type { AgentIdentity } from '../client/agent-identity.js';
import { busyReason, conflictReason } from '../core/edits/edit-decision.js';
import { badAgentReason, decideEdits } from '../core/edits/edit-request.js';
import { editRequestsOf } from '../state-dir/board-name.js';
import { DaemonBusy, DaemonDown, type HookDaemon, httpDecide } from './daemon.js';
import type { GuardMode, Verdict } from './guard-mode.js';
import { type HookInput, pathsToWrite, str } from './input.js';

export { conflictReason };

/** The client's own hook timeout as setup writes it (SPEC §10: "long enough, e.g. 30 s"). */
export const HOOK_TIMEOUT_S = 30;
/** A busy daemon is waited for until this long before the client's timeout, then the edit is refused. */
const MARGIN_S = 2;

export interface PreEditEnv {
  mode: GuardMode;
  /** COORD_BOARD, which the session's MCP server uses too: then every path is on it. */
  board?: string | undefined;
  cwd: string;
  identity: AgentIdentity | null;
  daemon: () => HookDaemon;
  /** The client's hook timeout in seconds (default HOOK_TIMEOUT_S). */
  timeoutS?: number | undefined;
}

export async function preEdit(input: HookInput, env: PreEditEnv): Promise<Verdict> {
  if (env.mode === 'off') return { kind: 'allow' };
  const cwd = str(input.cwd) ?? env.cwd;
  const requests = editRequestsOf(pathsToWrite(input), cwd, cwd, env.board);
  if (requests.length === 0) return { kind: 'allow' };
  if (!env.identity)
    return unchecked(
      env.mode,
      `${NO_AGENT} — COORD_GUARD=strict refuses the edit`,
      `${NO_AGENT}; edit allowed unchecked`,
    );
  // SPEC §10: a name the daemon would refuse is a refusal of the edit, never "daemon down".
  const badName = badAgentReason(env.identity.agent);
  if (badName) return refuse(env.mode, badName);
  const deadline = Date.now() + ((env.timeoutS ?? HOOK_TIMEOUT_S) - MARGIN_S) * 1000;
  try {
    const answer = await decideEdits(requests, httpDecide(env.daemon(), env.identity.agent, deadline));
    if (answer.denied) return refuse(env.mode, answer.denied);
    return answer.note ? { kind: 'allow', note: answer.note } : { kind: 'allow' };
  } catch (e) {
    if (e instanceof DaemonBusy) return refuse(env.mode, busyReason(e.waitedS));
    if (!(e instanceof DaemonDown)) throw e;
    const strict = `${e.message} — COORD_GUARD=strict refuses edits until it runs (coord serve)`;
    return unchecked(env.mode, strict, `coord: ${e.message}; edit allowed without a lock check`);
  }
}

const NO_AGENT = 'coord: cannot tell which agent this session is';

/** No agent to name, or no daemon: strict refuses, every other mode allows with one warning. */
const unchecked = (mode: GuardMode, strict: string, warning: string): Verdict =>
  mode === 'strict' ? { kind: 'deny', reason: `coord_unreachable: ${strict}` } : { kind: 'allow', warning };

const refuse = (mode: GuardMode, reason: string): Verdict =>
  mode === 'warn' ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` } : { kind: 'deny', reason };
