/** File names inside a coord state directory that the locks module owns. */
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';

export const daemonLockPath = (stateDir: string): string => join(stateDir, 'daemon.lock');
export const daemonCoordPath = (stateDir: string): string => join(stateDir, 'daemon.lock.coord');
export const daemonInfoPath = (stateDir: string): string => join(stateDir, 'daemon.json');
export const sessionsDir = (stateDir: string): string => join(stateDir, 'sessions');
export const sessionsCoordPath = (stateDir: string): string => join(stateDir, 'sessions.coord');

/** Create `dir` (and parents) with mode 0700 if missing; an existing dir is left to `tightenPrivate` at daemon start. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** What `tightenPrivate` changed: the entry and the mode it had. */
export interface Loosened {
  path: string;
  mode: number;
}

/**
 * Take group and other permissions off `path` (a directory → 0700, a file → its owner bits only),
 * through a descriptor opened without following symlinks, so a link planted while the directory
 * was open cannot make us chmod its target. Returns the old mode when it was looser, else null;
 * a missing entry, a symlink or a non-file is left alone. Opening and closing a file here is safe
 * for flocks (they belong to another open description) but not for SQLite's POSIX locks, which a
 * close drops process-wide: call this before the database is opened. A sticky directory is a shared one (`/tmp`):
 * tightening it would break everyone else, so it is refused instead.
 */
export function tightenPrivate(path: string, kind: 'dir' | 'file'): Loosened | null {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO someone left here must not hang the daemon's start.
    const only = kind === 'dir' ? constants.O_DIRECTORY : constants.O_NONBLOCK;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | only);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENXIO') return null;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (kind === 'dir' && (st.mode & 0o1000) !== 0)
      throw new Error(
        `${path} is a shared directory (sticky, mode ${octal(st.mode)}); give coord a directory of its own`,
      );
    if (kind === 'file' && !st.isFile()) return null;
    if ((st.mode & 0o077) === 0) return null;
    fchmodSync(fd, st.mode & 0o700);
    return { path, mode: st.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

export const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;
