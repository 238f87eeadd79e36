/**
 * The short coordination lock that guards the create/cleanup window of a
 * lock file (`daemon.lock.coord`, `sessions.coord`). It is held only for a
 * few non-blocking syscalls. Its own file is never deleted, so every process
 * always locks the same inode. Waiting is bounded: a stopped holder must not
 * hang every other process forever.
 */
import { CoordError } from '../core/errors.js';
import { tryLockFile, unlockFile } from './flock.js';

const DEFAULT_TIMEOUT_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * Run `fn` while holding an exclusive flock on `coordPath`. Polls the lock
 * with a short back-off (synchronously: the critical sections are tiny).
 */
export function withCoordinationLock<T>(coordPath: string, fn: () => T, timeoutMs: number = DEFAULT_TIMEOUT_MS): T {
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  let lock = tryLockFile(coordPath);
  while (lock === null) {
    if (Date.now() >= deadline) {
      throw new CoordError(
        'internal',
        `timed out after ${timeoutMs} ms waiting for the coordination lock ${coordPath}`,
        { path: coordPath },
      );
    }
    sleepSync(delay);
    delay = Math.min(delay * 2, 20);
    lock = tryLockFile(coordPath);
  }
  try {
    return fn();
  } finally {
    unlockFile(lock.fd);
  }
}
