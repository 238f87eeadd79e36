/**
 * Thin wrapper over flock(2) from fs-ext. A flock belongs to an open file
 * description: the kernel drops it when the last fd is closed, so a crashed
 * process (even after `kill -9`) never keeps a lock. Node opens files with
 * O_CLOEXEC, so children spawned by a holder do not inherit the lock.
 * Two opens of one file in the same process are two descriptions: they
 * conflict with each other just as two processes do.
 */
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { flockSync } from 'fs-ext';

export interface LockedFile {
  readonly fd: number;
}

export interface TryLockOptions {
  /** Create the file (mode 0600) if missing. Default true. */
  readonly create?: boolean;
}

const isWouldBlock = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
};

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * Open `path` (never through a symlink) and take an exclusive, non-blocking
 * flock. Returns null when another open file description holds it, or when
 * `create` is false and the file does not exist. Other errors are thrown.
 */
export function tryLockFile(path: string, options: TryLockOptions = {}): LockedFile | null {
  const create = options.create ?? true;
  const flags = constants.O_RDWR | constants.O_NOFOLLOW | (create ? constants.O_CREAT : 0);
  let fd: number;
  try {
    fd = openSync(path, flags, 0o600);
  } catch (e) {
    if (!create && isMissing(e)) return null;
    throw e;
  }
  try {
    flockSync(fd, 'exnb');
    return { fd };
  } catch (e) {
    closeSync(fd);
    if (isWouldBlock(e)) return null;
    throw e;
  }
}

/** Drop the flock and close the fd. The file itself is left in place. */
export function unlockFile(fd: number): void {
  try {
    flockSync(fd, 'un');
  } finally {
    closeSync(fd);
  }
}

/**
 * True when `path` still names the inode that `fd` has open, i.e. nobody
 * removed or replaced the file since it was opened.
 */
export function isSameFile(fd: number, path: string): boolean {
  try {
    const a = fstatSync(fd);
    const b = statSync(path);
    return a.dev === b.dev && a.ino === b.ino;
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}
