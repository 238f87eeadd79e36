/**
 * The URL of the daemon that holds a state directory's lock right now — the one test before a hook sends the
 * token (daemon.json outlives a kill -9, and whatever binds its port next must not get the token) — told, where
 * the system shows it, from one small file, so a command hook run on every edit loads neither fs-ext (flock(2),
 * a native addon, ~5 ms to load) nor takes the coordination lock:
 *
 * The daemon takes its lock first, holds it for its whole life (the kernel drops it only when the process
 * ends), and only then writes daemon.json with its pid and its process's start time (daemon-info.ts). So while
 * the process daemon.json names — that pid with that start time, not a later process given the same pid — is
 * alive, it holds the lock, and the URL is its own.
 *
 * Anything short of that proof — no start time in daemon.json (an older daemon), no /proc (macOS), a process
 * gone or not the same — is decided by daemon-lock.ts as before: a try-lock of daemon.lock under the
 * coordination lock. That is also the path that says "down".
 *
 * (Not /proc/locks: the kernel lists it under a write lock of every file lock's semaphore, which waits for an
 * RCU grace period — ~15 ms of a hook's run on the first read in each process.)
 */
import { processStart, readDaemonInfo } from './daemon-info.js';
import { readToken } from './token-file.js';

/** Where a client may send the token, and the token: the one pairing of the two every door makes. */
export interface LiveDaemon {
  url: string;
  token: string;
}

/**
 * The token only with the URL of a daemon that holds the state directory's lock (`url`, from liveDaemonUrl
 * or daemon-lock.ts's findRunningDaemon): null without either — no daemon runs, or none this client may use.
 */
export function liveDaemonOf(url: string | null | undefined, stateDir: string): LiveDaemon | null {
  if (!url) return null;
  try {
    return { url, token: readToken(stateDir) };
  } catch {
    return null;
  }
}

/** The daemon of a state directory a hook may send its token to, or null (hooks/daemon.ts). */
export const liveDaemon = async (stateDir: string): Promise<LiveDaemon | null> =>
  liveDaemonOf(await liveDaemonUrl(stateDir), stateDir);

export async function liveDaemonUrl(stateDir: string): Promise<string | null> {
  const info = readDaemonInfo(stateDir);
  // daemon-lock.ts trusts daemon.json only when it names the lock's holder: without it there is no URL to trust.
  if (!info) return null;
  if (info.start !== undefined && processStart(info.pid) === info.start) return info.url;
  const { findRunningDaemon } = await import('./daemon-lock.js');
  return findRunningDaemon(stateDir)?.url ?? null;
}
