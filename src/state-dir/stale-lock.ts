/**
 * Stale lock-file cleanup. A lock file is removed only after a try-lock
 * proves that nobody holds it — never because of its age or mtime — and the
 * lock is released before the file is deleted. Callers run this under the
 * coordination lock of the file's family, so nobody can open and lock the
 * file between our unlock and our unlink.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import { isSameFile, tryLockFile, unlockFile } from './flock.js';

/** What a cleanup attempt found: removed a dead file, left a held one, or nothing. */
export type StaleCleanup = 'removed' | 'held' | 'absent';

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException | null)?.code === 'ENOENT';

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

/** Remove the lock file at `path` if, and only if, a try-lock on it succeeds. */
export function removeIfUnheld(path: string): StaleCleanup {
  const probe = tryLockFile(path, { create: false });
  if (probe === null) return exists(path) ? 'held' : 'absent';
  const same = isSameFile(probe.fd, path);
  unlockFile(probe.fd); // release before delete
  if (!same) return exists(path) ? 'held' : 'absent';
  try {
    unlinkSync(path);
  } catch (e) {
    if (isMissing(e)) return 'absent';
    throw e;
  }
  return 'removed';
}
