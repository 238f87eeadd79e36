/**
 * SQLite failures as coord answers. A full disk, a read-only file system, an I/O error, a corrupt page or a
 * lock held too long by another process is an answer, not a crash: CoordError('store_unavailable') (HTTP 503,
 * CLI exit 3) that names the file and what to do, never SQL text, SQLite's codes or a stack trace (the daemon
 * log keeps SQLite's own error). Every write is one transaction, so a write that fails this way left nothing
 * behind and can simply be retried.
 */
import { CoordError } from '../../core/errors.js';

/** How long a writer waits for another process's write lock before the answer is "locked by another process". */
export const BUSY_TIMEOUT_MS = 5000;

/** better-sqlite3's extended code reduced to its primary one: SQLITE_IOERR_WRITE → SQLITE_IOERR. */
export function sqliteCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  return code.split('_', 2).join('_');
}

/** What went wrong with the file and what the user can do, or null when the error is not a storage fault. */
export function faultSentence(e: unknown, path: string, writing: boolean): string | null {
  const after = writing ? 'nothing was written, retry' : 'retry';
  switch (sqliteCode(e)) {
    case 'SQLITE_FULL':
      return `disk full: could not write ${path} — free space on that disk; ${after}`;
    case 'SQLITE_READONLY':
      return `read-only: could not write ${path} (the file or its file system is read-only) — make it writable; ${after}`;
    case 'SQLITE_IOERR':
      return `I/O error on ${path} — check that disk (dmesg, free space); ${after}`;
    case 'SQLITE_CANTOPEN':
      return `could not open ${path} or its -wal/-shm files — check that its directory exists and is writable; ${after}`;
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      // Not "move it aside": an I/O error (a failing or vanished disk) reads as corruption too. A restart
      // runs quick_check, which tells the two apart and refuses a file that really is corrupt.
      return `SQLite finds ${path} corrupt, or could not read it — stop coord and start it again: coord checks the file before using it and says what to do${writing ? '; nothing was written' : ''}`;
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
    case 'SQLITE_PROTOCOL':
      return `${path} is locked by another process (waited ${BUSY_TIMEOUT_MS / 1000} s) — close whatever holds it open (a sqlite3 shell, a backup tool); ${after}`;
    default:
      return null;
  }
}

/** The answer for a storage fault at run time, or null: any other error is a bug and stays one. */
export function storeFault(e: unknown, path: string, writing: boolean): CoordError | null {
  const sentence = faultSentence(e, path, writing);
  if (sentence === null) return null;
  const answer = new CoordError('store_unavailable', sentence);
  // Kept for the log and for callers that must tell a sick disk from a busy lock; never sent on the wire.
  answer.cause = e;
  return answer;
}

/** The disk itself refuses writes (full, read-only, I/O error), as opposed to another process holding the lock. */
export const isDiskFault = (e: unknown): boolean =>
  ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR'].includes(sqliteCode((e as Error | null)?.cause) ?? '');

/**
 * The daemon will not start on a database it cannot trust (not SQLite, corrupt, not coord's, written by a
 * newer coord, read-only). The message names the file and what to do; the file is left exactly as it was.
 */
export class UntrustedDatabase extends Error {
  override readonly name = 'UntrustedDatabase';
  constructor(
    readonly path: string,
    readonly reason: 'not_sqlite' | 'corrupt' | 'foreign' | 'newer' | 'read_only' | 'unusable',
    message: string,
  ) {
    super(message);
  }
}

export const LEAVE_IT = 'coord will not touch it; move it aside and restart to begin a new board, or restore a backup';
