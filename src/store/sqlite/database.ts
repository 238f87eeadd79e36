import { readdirSync, readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Numbered, append-only migrations: `NNNN-name.sql`, applied in order, tracked by PRAGMA user_version. */
export function migrations(): { version: number; name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(new URL(f, MIGRATIONS_DIR), 'utf8') }));
}

export function openDatabase(path: string): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // A writer waits for another writer instead of failing with SQLITE_BUSY.
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // WAL + NORMAL: a commit survives the process being killed (kill -9); only an OS
  // crash or power loss can drop the last transactions. See docs/architecture.md.
  db.pragma('synchronous = NORMAL');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  // IMMEDIATE: two processes opening a fresh file at once apply each migration once.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (const m of migrations()) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
}
