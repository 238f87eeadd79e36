/**
 * `<state>/daemon.json` — `{pid, url, version}`, written by the daemon after
 * it binds its port, plus on Linux `start`: when its process started (see
 * processStart), so a reader can tell that very process is alive — a pid alone
 * may have been reused. Readers must expect it to be missing, half-written or
 * left over from a crashed daemon.
 */

import { readFileSync } from 'node:fs';
import { daemonInfoPath, ensurePrivateDir } from './paths.js';
import { writePrivateFile } from './private-file.js';

export interface DaemonInfo {
  readonly pid: number;
  readonly url: string;
  readonly version: string;
  /** The daemon process's start (processStart), where the system tells it. */
  readonly start?: string;
}

/** Write daemon.json atomically: a private temp file, fsync, then rename. */
export function writeDaemonInfo(stateDir: string, info: DaemonInfo): void {
  ensurePrivateDir(stateDir);
  const target = daemonInfoPath(stateDir);
  const { pid, url, version, start } = info;
  writePrivateFile(target, `${JSON.stringify({ pid, url, version, ...(start ? { start } : {}) })}\n`);
}

/** daemon.json, or null when it is missing, unreadable or not well-formed. */
export function readDaemonInfo(stateDir: string): DaemonInfo | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(daemonInfoPath(stateDir), 'utf8'));
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const { pid, url, version, start } = raw as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return null;
  if (typeof url !== 'string' || typeof version !== 'string') return null;
  return { pid: pid as number, url, version, ...(typeof start === 'string' && start ? { start } : {}) };
}

/**
 * When process `pid` started, in clock ticks since boot (/proc/<pid>/stat, field 22): with the pid, one
 * process for the machine's whole uptime. Null where /proc does not tell (macOS) or no such process runs.
 */
export function processStart(pid: number): string | null {
  if (process.platform !== 'linux' || !Number.isSafeInteger(pid) || pid <= 0) return null;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid …`: the command name may hold spaces and parentheses, so count after the last `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return start && /^\d+$/.test(start) ? start : null;
}
