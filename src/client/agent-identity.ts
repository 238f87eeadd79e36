/**
 * One agent, one name (SPEC §10): a client session's MCP server and its hooks
 * must act as the same agent, so the agent's own locks never block its edits
 * and the locks its hooks take die with its session. Both sides derive the
 * name and the session id from the one fact the client gives both, as its
 * profile (src/clients/) says:
 *
 * - a session id both see (Claude Code: `CLAUDE_CODE_SESSION_ID`, in the environment of hooks and
 *   MCP servers alike);
 * - else (Codex, Gemini CLI, Cursor) the client process that both descend from —
 *   the nearest ancestor that is not a shell — named by its pid and start
 *   time (a pid alone can be reused). Codex does give hooks a `session_id`,
 *   but its MCP server sees it only inside calls; its MCP server process
 *   serves every session of one Codex process, so the process is what both
 *   sides share from the start.
 *
 * With no such process (only shells up to PID 1, or an init), both sides fall back to one name per
 * client, user and host.
 *
 * The session id is a uuid derived from the same fact: `coord mcp` holds the
 * session lock file of that uuid (rule 13), so locks a hook took under it are
 * freed when the client — and with it its `coord mcp` — exits.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { type ClientKind, profileOf } from '../clients/index.js';
import { agentOfKey } from '../core/shared/agent-name.js';
import { resolveAgent } from '../state-dir/who.js';

export { CLIENT_KINDS, type ClientKind, isClientKind } from '../clients/index.js';

export interface AgentIdentity {
  /** `claude#1a2b3c`, or COORD_AGENT when set. */
  agent: string;
  /** A uuid: the session whose end frees this agent's claims and locks. */
  sessionId: string;
  /** What both were derived from, for messages: `claude session …` or `codex process 1234`. */
  source: string;
}

/** node:os only where a name falls back to user and host (never for Claude Code's session id). */
const os = (): typeof import('node:os') => createRequire(import.meta.url)('node:os') as typeof import('node:os');

const uid = (): string => {
  try {
    return String(os().userInfo().uid);
  } catch {
    return 'unknown';
  }
};

/**
 * PID 1 of a machine or container when it only starts and reaps others: reaching it means no client
 * process is above us. Any other PID 1 — a container's entrypoint — is the client itself.
 */
const INIT = new Set([
  'systemd',
  'init',
  'launchd',
  'tini',
  'dumb-init',
  'docker-init',
  'catatonit',
  's6-svscan',
  'runit',
]);

/** Processes that only pass a command on: a hook's parent is usually the shell its client ran it through. */
const WRAPPERS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'busybox', 'env', 'timeout', 'nice', 'nohup']);

/**
 * `skip` names more pass-through processes: git's pre-commit hook runs under `git`, itself run by the
 * agent's shell tool under the client.
 */
export function identify(
  client: ClientKind,
  env: NodeJS.ProcessEnv,
  opts: {
    pid?: number;
    /** The client process itself (a plugin running this inside its client): not an ancestor of `pid`. */
    client?: number;
    skip?: string[];
    side?: 'hook' | 'mcp';
    input?: Record<string, unknown>;
  } = {},
): AgentIdentity | null {
  let key: string;
  let source: string;
  const session = sharedSession(client, env, opts.side ?? 'hook', opts.input);
  if (session) {
    key = `${client}:${session}`;
    source = `${client} session ${session}`;
  } else {
    const self = opts.client === undefined ? null : facts(opts.client);
    const parent = self ? { pid: self.pid, start: self.start } : clientProcess(opts.pid ?? process.pid, opts.skip);
    if (parent) {
      key = `${client}:process:${parent.pid}:${parent.start}`;
      source = `${client} process ${parent.pid}`;
    } else {
      // Nothing but shells up to PID 1 (or an init): no process names the session. Both sides still
      // agree on one name — never "allowed unchecked" — by client, user and host.
      const who = `${uid()}@${os().hostname()}`;
      key = `${client}:fallback:${who}`;
      source = `${client} without a client process (${who})`;
    }
  }
  const derived = agentOfKey(client, key);
  return { agent: resolveAgent({ env, session: derived.agent }), sessionId: derived.sessionId, source };
}

/** The session id the client gives this side (its MCP server, or its hooks) and the other side alike. */
function sharedSession(
  client: ClientKind,
  env: NodeJS.ProcessEnv,
  side: 'hook' | 'mcp',
  input: Record<string, unknown> | undefined,
): string | undefined {
  const id = profileOf(client).identity;
  for (const name of side === 'mcp' ? id.mcpEnv : id.hookEnv) if (env[name]) return env[name];
  const field = side === 'hook' && id.hookField ? input?.[id.hookField] : undefined;
  return typeof field === 'string' && field !== '' ? field : undefined;
}

interface ProcessFacts {
  pid: number;
  ppid: number;
  name: string;
  start: string;
}

/**
 * The nearest ancestor of `pid` that is not a shell or wrapper: the client that started us — PID 1
 * included (a client that is a container's entrypoint), unless PID 1 is an init system.
 */
export function clientProcess(pid: number, skip: string[] = []): { pid: number; start: string } | null {
  let at = facts(pid);
  for (let hops = 0; at && hops < 12; hops++) {
    const parent = facts(at.ppid);
    if (!parent || parent.pid < 1 || (parent.pid === 1 && INIT.has(parent.name))) return null;
    if (!WRAPPERS.has(parent.name) && !skip.includes(parent.name)) return { pid: parent.pid, start: parent.start };
    if (parent.pid === 1) return null;
    at = parent;
  }
  return null;
}

function facts(pid: number): ProcessFacts | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return process.platform === 'linux' ? procFacts(pid) : psFacts(pid);
}

/** /proc/<pid>/stat: `pid (comm) state ppid …`, start time is field 22 (after the comm, which may hold spaces). */
function procFacts(pid: number): ProcessFacts | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(')');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  const rest = stat
    .slice(close + 2)
    .split(' ')
    .filter(Boolean);
  const ppid = Number(rest[1]);
  const start = rest[19];
  return start === undefined || !Number.isInteger(ppid) ? null : { pid, ppid, name, start };
}

/** Where /proc is missing (macOS): `ps`. child_process is loaded only here, so `coord mcp` on Linux never loads it. */
function psFacts(pid: number): ProcessFacts | null {
  const { spawnSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  const out = spawnSync('ps', ['-o', 'ppid=,lstart=,comm=', '-p', String(pid)], { encoding: 'utf8' });
  const m = /^\s*(\d+)\s+(\S+\s+\S+\s+\d+\s+[\d:]+\s+\d+)\s+(.+?)\s*$/.exec(out.stdout ?? '');
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const name = m[3].split('/').pop() ?? m[3];
  return { pid, ppid: Number(m[1]), name: name.replace(/^-/, ''), start: m[2] };
}
