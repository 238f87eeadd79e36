import Database from 'better-sqlite3';
import { type Migration, storeMigrations } from '../shared/migrations.js';
import { BUSY_TIMEOUT_MS, sqliteCode } from './sqlite-errors.js';
import { asRefusal, leavesAsFound, removeSidecars, sidecarsMissing, trustDatabase } from './trust-database.js';

export type Db = Database.Database;

/**
 * 'full' (the default, SPEC §8): synchronous=FULL, a commit is on disk when COMMIT returns and survives power
 * loss or an OS crash. 'normal': synchronous=NORMAL, a commit survives the process being killed (kill -9), but
 * an OS crash or power cut can drop the last transactions before the next checkpoint.
 */
export type Durability = 'full' | 'normal';
export const DURABILITIES: readonly Durability[] = ['full', 'normal'];

/**
 * Opens coord.db, refusing (UntrustedDatabase, message naming the file and what to do) a file that is not
 * coord's intact SQLite database or that cannot be written — before writing a single byte to it.
 */
export function openDatabase(path: string, durability: Durability = 'full'): Db {
  const all = storeMigrations('sqlite');
  const onDisk = path !== ':memory:';
  const created = onDisk ? sidecarsMissing(path) : [];
  let db: Db | undefined;
  try {
    if (onDisk) trustDatabase(path, all.at(-1)?.version ?? 0);
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    // A writer waits for another writer instead of failing with SQLITE_BUSY.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    // WAL + FULL: the WAL is synced at every commit (group commit pays for it: one sync per batch).
    // WAL + NORMAL: synced only at checkpoints. See docs/durability.md.
    db.pragma(`synchronous = ${durability === 'normal' ? 'NORMAL' : 'FULL'}`);
    migrate(db, all);
    return db;
  } catch (e) {
    db?.close();
    const refusal = asRefusal(e, path);
    if (leavesAsFound(refusal)) removeSidecars(path, created);
    throw refusal;
  }
}

/** The store's migrations (shared/migrations.ts), applied in order, tracked by PRAGMA user_version. */
function migrate(db: Db, all: Migration[]): void {
  let pending = false;
  try {
    // IMMEDIATE: two processes opening a fresh file at once apply each migration once.
    db.transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      for (const m of all) {
        if (m.version <= current) continue;
        pending = true;
        db.exec(m.sql);
        db.pragma(`user_version = ${m.version}`);
      }
      // The write probe: BEGIN IMMEDIATE succeeds even on a file SQLite could open only read-only, so
      // commit one harmless write (user_version set to itself) to learn now, not at the first post.
      if (!pending) db.pragma(`user_version = ${current}`);
    }).immediate();
  } catch (e) {
    // A full disk is no reason to refuse a board that needs no migration: reads still answer and each
    // write says "disk full" (sqlite-errors.ts) until space is freed.
    if (pending || sqliteCode(e) !== 'SQLITE_FULL') throw e;
  }
}
