/**
 * pre-edit (SPEC §10): before a client's write tool runs, the paths it would
 * write are keyed as locks are (relative to their work tree, §5). A path
 * held by another agent blocks the call with `lock_conflict: …`; otherwise
 * this agent takes (or keeps) an auto-lock on them — lease 10 min, tied to its
 * session — so the first agent to edit a file holds it while it works.
 */
import { isAbsolute, resolve } from 'node:path';
import type { AgentIdentity } from '../client/agent-identity.js';
import { isDirectory, normaliseResource, overlaps } from '../core/paths.js';
import { locatePath } from '../state-dir/board-name.js';
import { DaemonDown, type HookDaemon, query } from './daemon.js';
import { type GuardMode, leaseEnd, type Verdict } from './guard-mode.js';
import { type HookInput, pathsToWrite, str } from './input.js';

/** Auto-locks live 10 min past the last edit (renewed by later edits). */
export const AUTO_LOCK_LEASE_S = 600;
/** An own lock with less than this left is renewed by the next edit of its files. */
const RENEW_BELOW_MS = (AUTO_LOCK_LEASE_S * 1000) / 2;

interface LiveLock {
  lock_id: string;
  agent: string;
  resources: string[];
  lease_until: string;
  task_id: string | null;
}

interface Conflict {
  resource: string;
  held: string;
  holder: string;
  lease_until: string;
  task_id?: string | null;
}

export interface PreEditEnv {
  mode: GuardMode;
  /** COORD_BOARD, which the session's MCP server uses too: then every path is on it. */
  board?: string | undefined;
  cwd: string;
  identity: AgentIdentity | null;
  daemon: () => HookDaemon;
}

export async function preEdit(input: HookInput, env: PreEditEnv): Promise<Verdict> {
  if (env.mode === 'off') return { kind: 'allow' };
  const cwd = str(input.cwd) ?? env.cwd;
  // Each path as spelt (`..` after a symlinked folder climbs from its target, as the OS reads it) and
  // lexically resolved (as clients that normalise paths read it): both keys are checked.
  const boards = keysByBoard(
    pathsToWrite(input).flatMap((p) => [isAbsolute(p) ? p : `${cwd}/${p}`, resolve(cwd, p)]),
    env.board,
  );
  if (boards.size === 0) return { kind: 'allow' };
  if (!env.identity) {
    const why = 'coord: cannot tell which agent this session is';
    return env.mode === 'strict'
      ? { kind: 'deny', reason: `coord_unreachable: ${why} — COORD_GUARD=strict refuses the edit` }
      : { kind: 'allow', warning: `${why}; edit allowed unchecked` };
  }
  let daemon: HookDaemon;
  try {
    daemon = env.daemon();
    const conflicts: Conflict[] = [];
    for (const [board, keys] of boards) conflicts.push(...(await holdFor(daemon, env.identity.agent, board, keys)));
    if (conflicts.length === 0) return { kind: 'allow' };
    const reason = conflictReason(conflicts);
    return env.mode === 'warn'
      ? { kind: 'allow', warning: `coord (COORD_GUARD=warn): ${reason}` }
      : { kind: 'deny', reason };
  } catch (e) {
    if (!(e instanceof DaemonDown)) throw e;
    if (env.mode === 'strict')
      return {
        kind: 'deny',
        reason: `coord_unreachable: ${e.message} — COORD_GUARD=strict refuses edits until it runs (coord serve)`,
      };
    return { kind: 'allow', warning: `coord: ${e.message}; edit allowed without a lock check` };
  }
}

/** The lock keys of the paths, per board; paths outside any repository are not coord's to guard. */
function keysByBoard(paths: string[], fixedBoard: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of paths) {
    const at = locatePath(p);
    if (!at) continue;
    const key = normaliseResource(at.key);
    if (!key.ok) continue;
    const board = fixedBoard || at.board;
    const keys = out.get(board) ?? [];
    if (!keys.includes(key.key)) keys.push(key.key);
    out.set(board, keys);
  }
  return out;
}

/** Others' locks on the keys, or none — in which case this agent now holds every key. */
async function holdFor(daemon: HookDaemon, agent: string, board: string, keys: string[]): Promise<Conflict[]> {
  const listed = await daemon.get<{ locks: LiveLock[] }>(`/v1/locks?${query({ board })}`);
  if (listed.status !== 200) throw new DaemonDown(`the coord daemon answered HTTP ${listed.status} for its locks`);
  const conflicts: Conflict[] = [];
  const mine: LiveLock[] = [];
  const uncovered: string[] = [];
  for (const key of keys) {
    let covered = false;
    for (const lock of listed.body.locks) {
      for (const held of lock.resources) {
        if (!overlaps(key, held)) continue;
        if (lock.agent !== agent)
          conflicts.push({
            resource: key,
            held,
            holder: lock.agent,
            lease_until: lock.lease_until,
            task_id: lock.task_id,
          });
        else if (held === key || (isDirectory(held) && key.startsWith(held))) {
          covered = true;
          if (!mine.includes(lock)) mine.push(lock);
        }
      }
    }
    if (!covered) uncovered.push(key);
  }
  if (conflicts.length > 0) return conflicts;
  for (const lock of mine) {
    // A claim's lock follows its claim; a plain one is kept alive by the edits of its files.
    if (lock.task_id === null && Date.parse(lock.lease_until) - Date.now() < RENEW_BELOW_MS) {
      await daemon.post(`/v1/locks/${encodeURIComponent(lock.lock_id)}/renew`, {});
    }
  }
  if (uncovered.length === 0) return [];
  const taken = await daemon.post<{ error?: { code?: string; conflicts?: Conflict[] } }>('/v1/locks', {
    agent,
    board,
    resources: uncovered,
    lease_s: AUTO_LOCK_LEASE_S,
  });
  if (taken.status === 201) return [];
  const lost = taken.body.error;
  if (lost?.code === 'lock_conflict') {
    // Lost a race: someone locked a key between the look and the lock. Its own other session is no conflict.
    return (lost.conflicts ?? []).filter((c) => c.holder !== agent);
  }
  throw new DaemonDown(`the coord daemon refused the auto-lock: ${lost?.code ?? `HTTP ${taken.status}`}`);
}

/** `lock_conflict: src/a.ts is held by codex#1a2b3c until 14:02:11 UTC (in 9m), task #k3x9 — …` */
export function conflictReason(conflicts: Conflict[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const c of conflicts) {
    const line = `${c.resource} is held by ${c.holder}${c.held === c.resource ? '' : ` (as ${c.held})`} until ${leaseEnd(c.lease_until)}${c.task_id ? `, task #${c.task_id}` : ''}`;
    if (!seen.has(line)) parts.push(line);
    seen.add(line);
  }
  return `lock_conflict: ${parts.join('; ')} — edit something else, or ask that agent (coord who); do not work around the lock`;
}
