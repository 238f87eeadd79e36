/**
 * `<state>/daemon.json` — `{pid, url, version}`, written by the daemon after
 * it binds its port. Readers must expect it to be missing, half-written or
 * left over from a crashed daemon.
 */

import { readFileSync } from 'node:fs';
import { daemonInfoPath, ensurePrivateDir } from './paths.js';
import { writePrivateFile } from './private-file.js';

export interface DaemonInfo {
  readonly pid: number;
  readonly url: string;
  readonly version: string;
}

/** Write daemon.json atomically: a private temp file, fsync, then rename. */
export function writeDaemonInfo(stateDir: string, info: DaemonInfo): void {
  ensurePrivateDir(stateDir);
  const target = daemonInfoPath(stateDir);
  writePrivateFile(target, `${JSON.stringify({ pid: info.pid, url: info.url, version: info.version })}\n`);
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
  const { pid, url, version } = raw as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return null;
  if (typeof url !== 'string' || typeof version !== 'string') return null;
  return { pid: pid as number, url, version };
}
