/**
 * pre-edit (SPEC §10): before a client's write tool runs, the paths it would
 * write are keyed as locks are (relative to their work tree, §5) and the
 * daemon decides the edit in one round trip (decide_edit, one transaction):
 * a path held by another agent blocks the call with `lock_conflict: …`;
 * otherwise this agent now holds (or keeps) an auto-lock on them — lease
 * 10 min, tied to its session — so the first agent to edit a file holds it
 * while it works. The hook only translates the answer.
 */
import { isAbsolute, resolve } from 'node:path';
import { PATHS } from '../api/paths.js';
import type { AgentIdentity } from '../client/agent-identity.js';
import { busyReason, type ConflictLine, conflictReason } from '../core/edit-decision.js';
import {
  badAgentReason,
  type EditRequest,
  editRequests,
  type LocatedPath,
  refusalReason,
} from '../core/edit-request.js';
import { findWorkTree, locatePath } from '../state-dir/board-name.js';
import { DaemonBusy, DaemonDown, type HookDaemon } from './daemon.js';
import type { GuardMode, Verdict } from './guard-mode.js';
import { type HookInput, pathsToWrite, str } from './input.js';

export { conflictReason };

/** The client's own hook timeout as setup writes it (SPEC §10: "long enough, e.g. 30 s"). */
export const HOOK_TIMEOUT_S = 30;
/** A busy daemon is waited for until this long before the client's timeout, then the edit is refused. */
const MARGIN_S = 2;

/** What POST /v1/locks/decide answers (core/ops/decide-edit.ts). */
interface Decision {
  decision: 'allow' | 'deny';
  reason: string | null;
  conflicts: ConflictLine[];
  /** Allow: changes not merged yet in another work tree that no hold covers (SPEC §14); absent from older daemons. */
  warning?: string | null;
}

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
  const requests = requestsOf(input, env);
  if (requests.length === 0) return { kind: 'allow' };
  if (!env.identity) return unknownAgent(env.mode);
  // SPEC §10: a name the daemon would refuse is a refusal of the edit, never "daemon down".
  const badName = badAgentReason(env.identity.agent);
  if (badName) return refuse(env.mode, badName);
  const deadline = Date.now() + ((env.timeoutS ?? HOOK_TIMEOUT_S) - MARGIN_S) * 1000;
  try {
    const daemon = env.daemon();
    const denied: Decision[] = [];
    const notes: string[] = [];
    for (const r of requests) {
      const d = await decide(daemon, { agent: env.identity.agent, ...r }, deadline);
      if (d.decision === 'deny') denied.push(d);
      else if (d.warning && !notes.includes(d.warning)) notes.push(d.warning);
    }
    return verdictOf(env.mode, denied, notes);
  } catch (e) {
    if (e instanceof DaemonBusy) return refuse(env.mode, busyReason(e.waitedS));
    if (!(e instanceof DaemonDown)) throw e;
    return daemonDown(env.mode, e);
  }
}

/** The edit's paths as requests, one per board and work tree. */
function requestsOf(input: HookInput, env: PreEditEnv): EditRequest[] {
  const cwd = str(input.cwd) ?? env.cwd;
  // Each path as spelt (`..` after a symlinked folder climbs from its target, as the OS reads it) and
  // lexically resolved (as clients that normalise paths read it): both keys are checked.
  return editRequests(
    located(pathsToWrite(input).flatMap((p) => [isAbsolute(p) ? p : `${cwd}/${p}`, resolve(cwd, p)])),
    findWorkTree(cwd)?.root ?? null,
    env.board,
  );
}

function unknownAgent(mode: GuardMode): Verdict {
  const why = 'coord: cannot tell which agent this session is';
  return mode === 'strict'
    ? { kind: 'deny', reason: `coord_unreachable: ${why} — COORD_GUARD=strict refuses the edit` }
    : { kind: 'allow', warning: `${why}; edit allowed unchecked` };
}

/** The daemon's decisions on every request as one verdict. */
function verdictOf(mode: GuardMode, denied: Decision[], notes: string[]): Verdict {
  if (denied.length === 0) return notes.length > 0 ? { kind: 'allow', note: notes.join('\n') } : { kind: 'allow' };
  // Plain conflicts of several requests read as one lock_conflict line; other refusals each say their own.
  const plain = denied.length > 1 && denied.every((d) => d.conflicts.length > 0 && !d.conflicts.some(isHold));
  const reasons = denied.map((d) => d.reason ?? conflictReason(d.conflicts));
  return refuse(mode, plain ? conflictReason(denied.flatMap((d) => d.conflicts)) : [...new Set(reasons)].join('\n'));
}

function daemonDown(mode: GuardMode, e: DaemonDown): Verdict {
  if (mode === 'strict')
    return {
      kind: 'deny',
      reason: `coord_unreachable: ${e.message} — COORD_GUARD=strict refuses edits until it runs (coord serve)`,
    };
  return { kind: 'allow', warning: `coord: ${e.message}; edit allowed without a lock check` };
}

const isHold = (c: ConflictLine): boolean => (c as { hold?: boolean }).hold === true;

const refuse = (mode: GuardMode, reason: string): Verdict =>
  mode === 'warn' ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` } : { kind: 'deny', reason };

/**
 * One round trip: the daemon looks and locks in one transaction. A daemon that answers anything but a
 * decision refuses the edit (SPEC §10: a live daemon's answer is never "down").
 */
async function decide(daemon: HookDaemon, body: { agent: string } & EditRequest, deadline: number): Promise<Decision> {
  const answer = await daemon.post<Decision | null>(PATHS.decideEdit, body, deadline);
  if (answer.status === 200 && answer.body?.decision) return answer.body;
  const reason = refusalReason(answer.status, answer.body);
  return { decision: 'deny', reason, conflicts: [] };
}

/** Where each path lies (board, work tree, key); paths outside any repository are not coord's to guard. */
function located(paths: string[]): LocatedPath[] {
  return paths.flatMap((p) => {
    const at = locatePath(p);
    return at ? [{ board: at.board, tree: at.tree.root, key: at.key }] : [];
  });
}
