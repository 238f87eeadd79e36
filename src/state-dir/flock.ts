/**
 * Thin wrapper over flock(2) from fs-ext. A flock belongs to an open file
 * description: the kernel drops it when the last fd is closed, so a crashed
 * process (even after `kill -9`) never keeps a lock. Node opens files with
 * O_CLOEXEC, so children spawned by a holder do not inherit the lock.
 * Two opens of one file in the same process are two descriptions: they
 * conflict with each other just as two processes do.
 *
 * fs-ext is a native Node addon. coord's hooks also run inside Bun (the OpenCode and Kilo plugins,
 * src/plugins/hook-call.ts), which cannot load it: there the same flock(2) is called from libc through
 * bun:ffi.
 */
import { closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

type Flock = (fd: number, how: 'exnb' | 'un') => void;
let flockFn: Flock | undefined;

function flockSync(fd: number, how: 'exnb' | 'un'): void {
  flockFn ??= loadFlock();
  flockFn(fd, how);
}

function loadFlock(): Flock {
  const require = createRequire(import.meta.url);
  try {
    return (require('fs-ext') as { flockSync: Flock }).flockSync;
  } catch (e) {
    if (!process.versions.bun) throw e;
    return bunFlock(require);
  }
}

/** flock(2) from libc in Bun: with LOCK_NB a failure is the lock held elsewhere (the fd was just opened). */
function bunFlock(require: NodeJS.Require): Flock {
  type Ffi = {
    dlopen(
      lib: string,
      s: Record<string, { args: string[]; returns: string }>,
    ): {
      symbols: { flock(fd: number, op: number): number };
    };
  };
  // The comment after the name is load-bearing: Cline's plugin sandbox scans .js files for a require of a quoted
  // name closed right after, and refuses the whole plugin when the name does not resolve there (Bun knows this
  // one only when it runs it); coord's own import rules still read the name.
  const { dlopen } = require('bun:ffi' /* Bun's own */) as Ffi;
  const libc = dlopen(process.platform === 'darwin' ? '/usr/lib/libSystem.B.dylib' : 'libc.so.6', {
    flock: { args: ['i32', 'i32'], returns: 'i32' },
  });
  const LOCK_EX = 2;
  const LOCK_NB = 4;
  const LOCK_UN = 8;
  return (fd, how) => {
    if (libc.symbols.flock(fd, how === 'exnb' ? LOCK_EX | LOCK_NB : LOCK_UN) === 0) return;
    throw Object.assign(new Error(`flock: ${how === 'exnb' ? 'held' : 'unlock failed'}`), {
      code: how === 'exnb' ? 'EWOULDBLOCK' : 'EIO',
    });
  };
}

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
