/**
 * Before the daemon writes to an existing coord.db it proves the file is one it may write: a SQLite database,
 * intact (PRAGMA quick_check), coord's own (user_version and its tables), and not from a newer coord. The check
 * reads only — a read-only connection, which never checkpoints — and on a refusal openDatabase removes the
 * empty -wal/-shm files it created, so a refused file and its directory are left exactly as they were.
 */
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { faultSentence, LEAVE_IT, sqliteCode, UntrustedDatabase } from './sqlite-errors.js';

const MAGIC = 'SQLite format 3\0';

const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/**
 * 'fresh' when there is nothing to lose (no file, or a zero-length file with no WAL content: what SQLite
 * itself reads as an empty database); 'existing' when the file passed every check; otherwise throws.
 */
export function trustDatabase(path: string, lastVersion: number): 'fresh' | 'existing' {
  if (!existsSync(path)) return 'fresh';
  if (size(path) === 0 && size(`${path}-wal`) === 0) return 'fresh';
  if (size(path) > 0) checkHeader(path);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    checkContents(db, path, lastVersion);
    db.close();
    // Trusted: the -wal/-shm stay, for the connection that opens next (and any other process already using them).
    return 'existing';
  } catch (e) {
    db?.close();
    throw asRefusal(e, path);
  }
}

/** A file refused as untrusted is left as found; a transient failure (busy, I/O) may share its sidecars with others. */
export const leavesAsFound = (e: Error): boolean => e instanceof UntrustedDatabase && e.reason !== 'unusable';

/** The -wal/-shm files that do not exist yet: those a connection about to open would create. */
export const sidecarsMissing = (path: string): string[] => ['-wal', '-shm'].filter((s) => !existsSync(path + s));

/**
 * Removes sidecars a connection (now closed) created on a refused file: the -shm holds only an index of the
 * -wal, and the -wal only while empty — one with frames holds committed writes and is never removed.
 */
export function removeSidecars(path: string, created: string[]): void {
  for (const s of created) if (s === '-shm' || size(path + s) === 0) rmSync(path + s, { force: true });
}

function checkHeader(path: string): void {
  const head = Buffer.alloc(MAGIC.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== MAGIC) {
    throw new UntrustedDatabase(
      path,
      'not_sqlite',
      `${path} is not a SQLite database (it does not start with "SQLite format 3") — ${LEAVE_IT}`,
    );
  }
}

function checkContents(db: Database.Database, path: string, lastVersion: number): void {
  const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check);
  if (problems.length !== 1 || problems[0] !== 'ok') {
    const shown = problems.slice(0, 3).join('; ');
    const more = problems.length > 3 ? ` and ${problems.length - 3} more` : '';
    throw new UntrustedDatabase(path, 'corrupt', `${path} is corrupt (quick_check: ${shown}${more}) — ${LEAVE_IT}`);
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
    (t) => t.name,
  );
  // user_version 0 with no tables is an empty database (created, never migrated): nothing to lose.
  if ((version === 0 && tables.length > 0) || (version > 0 && !tables.includes('tasks'))) {
    const listed = tables.slice(0, 5).join(', ') || 'none';
    throw new UntrustedDatabase(
      path,
      'foreign',
      `${path} is a SQLite database but not coord's (user_version ${version}, tables: ${listed}) — coord will not touch it; move it aside, or use another --state directory`,
    );
  }
  if (version > lastVersion) {
    throw new UntrustedDatabase(
      path,
      'newer',
      `${path} was written by a newer coord (schema version ${version}; this coord knows up to ${lastVersion}) — coord will not touch it; run that newer coord (or a later one)`,
    );
  }
}

/** Any failure while checking or opening becomes a refusal that names the file and what to do. */
export function asRefusal(e: unknown, path: string): Error {
  if (e instanceof UntrustedDatabase) return e;
  const code = sqliteCode(e);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new UntrustedDatabase(path, 'corrupt', `${path} is corrupt (${errorText(e)}) — ${LEAVE_IT}`);
  }
  if (code === 'SQLITE_READONLY') {
    return new UntrustedDatabase(
      path,
      'read_only',
      `${path} is read-only (the file or its file system cannot be written) — coord will not start on a board it cannot write; make it writable (check the mount), or use another --state directory`,
    );
  }
  const sentence = faultSentence(e, path, false);
  if (sentence !== null)
    return new UntrustedDatabase(path, 'unusable', sentence.replace(/; retry$/, '; then start again'));
  return e instanceof Error ? e : new Error(String(e));
}

const errorText = (e: unknown): string => `SQLite: ${(e as Error).message}`;
