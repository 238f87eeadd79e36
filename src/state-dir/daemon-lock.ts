/**
 * One daemon per state directory (SPEC rule 12). The daemon holds an
 * exclusive flock on `<state>/daemon.lock` for its whole life; the kernel
 * drops it when the process dies. `daemon.lock.coord` guards the short
 * create/cleanup window. A file left by a crashed daemon is removed only
 * after a try-lock proves nobody holds it — never by its age.
 */
import { existsSync, ftruncateSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { withCoordinationLock } from './coordination-lock.js';
import { readDaemonInfo } from './daemon-info.js';
import { type LiveDaemon, liveDaemonOf } from './daemon-live.js';
import { isSameFile, tryLockFile, unlockFile } from './flock.js';
import { daemonCoordPath, daemonLockPath, ensurePrivateDir } from './paths.js';
import { removeIfUnheld, type StaleCleanup } from './stale-lock.js';

export type { DaemonInfo } from './daemon-info.js';
export { readDaemonInfo, writeDaemonInfo } from './daemon-info.js';

export interface DaemonLock {
  /** Unlock, close, then remove daemon.lock (under the coordination lock). Idempotent. */
  release(): void;
}

/** The running daemon, as far as it can be told: either part may be unknown. */
export interface DaemonHolder {
  readonly pid: number | null;
  readonly url: string | null;
}

export type DaemonLockResult =
  | { readonly ok: true; readonly lock: DaemonLock }
  | ({ readonly ok: false } & DaemonHolder);

/** Try once, without waiting, to become the daemon of `stateDir`. */
export function acquireDaemonLock(stateDir: string): DaemonLockResult {
  ensurePrivateDir(stateDir);
  const path = daemonLockPath(stateDir);
  const coord = daemonCoordPath(stateDir);
  const outcome = withCoordinationLock(coord, () => {
    if (removeIfUnheld(path) === 'held') {
      return { fd: null, lockPid: readLockPid(path) };
    }
    const lock = tryLockFile(path);
    if (lock === null) return { fd: null, lockPid: readLockPid(path) };
    try {
      ftruncateSync(lock.fd, 0);
      writeSync(lock.fd, `${process.pid}\n`, 0);
    } catch (e) {
      unlockFile(lock.fd);
      unlinkSync(path);
      throw e;
    }
    return { fd: lock.fd, lockPid: process.pid };
  });
  if (outcome.fd === null) {
    return { ok: false, ...describeHolder(stateDir, outcome.lockPid) };
  }
  return { ok: true, lock: heldLock(outcome.fd, path, coord) };
}

/**
 * Remove daemon.lock if a try-lock proves nobody holds it. A held lock is
 * never touched, whatever its age.
 */
export function cleanupStaleDaemonLock(stateDir: string): StaleCleanup {
  return withCoordinationLock(daemonCoordPath(stateDir), () => removeIfUnheld(daemonLockPath(stateDir)));
}

/** The daemon holding `stateDir`'s lock right now, or null if none does. */
export function findRunningDaemon(stateDir: string): DaemonHolder | null {
  if (!existsSync(stateDir)) return null;
  const path = daemonLockPath(stateDir);
  const lockPid = withCoordinationLock(daemonCoordPath(stateDir), () => {
    const probe = tryLockFile(path, { create: false });
    if (probe !== null) {
      unlockFile(probe.fd);
      return undefined;
    }
    return existsSync(path) ? readLockPid(path) : undefined;
  });
  if (lockPid === undefined) return null;
  return describeHolder(stateDir, lockPid);
}

/**
 * The daemon that holds `stateDir`'s lock right now, with the token, as a client that loads this file
 * anyway (the CLI, `coord mcp`) asks: the one test before a client sends the token (daemon-live.ts's
 * liveDaemonOf) — daemon.json outlives a `kill -9`, and whatever process binds that port next must not be
 * handed `Authorization: Bearer <token>`.
 */
export const liveDaemonNow = (stateDir: string): LiveDaemon | null =>
  liveDaemonOf(findRunningDaemon(stateDir)?.url, stateDir);

function heldLock(fd: number, path: string, coord: string): DaemonLock {
  let open = true;
  return {
    release() {
      if (!open) return;
      try {
        withCoordinationLock(coord, () => {
          const same = isSameFile(fd, path);
          open = false;
          unlockFile(fd); // release before delete
          if (same) unlinkQuiet(path);
        });
      } finally {
        // Never keep the lock because cleanup failed; a leftover file is harmless.
        if (open) {
          open = false;
          unlockFile(fd);
        }
      }
    },
  };
}

/**
 * daemon.lock holds the holder's pid (written under the coordination lock,
 * so it is complete whenever the lock is seen held). daemon.json adds the
 * URL, and is trusted only when it names the same pid: a leftover from a
 * crashed daemon must not send clients to a dead address.
 */
function describeHolder(stateDir: string, lockPid: number | null): DaemonHolder {
  const info = readDaemonInfo(stateDir);
  if (lockPid === null) return { pid: info?.pid ?? null, url: info?.url ?? null };
  return { pid: lockPid, url: info?.pid === lockPid ? info.url : null };
}

function readLockPid(path: string): number | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
