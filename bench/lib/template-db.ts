/**
 * Seeded SQLite files are built once into bench/.cache (keyed by a hash of what
 * built them) and copied per round, so a round measures work, not seeding.
 * Temporary copies live under the OS temp dir and are removed by the caller.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoPath } from './child.js';

export const CACHE_DIR = repoPath('bench/.cache');

/**
 * Returns the path of a template file built by `build(path)` if missing. `key` must
 * change whenever the content would (include DDL and sizes in it).
 */
export async function templateDb(key: string, build: (path: string) => Promise<void> | void): Promise<string> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const path = join(CACHE_DIR, `${hash}.sqlite`);
  if (existsSync(path)) return path;
  const building = `${path}.building-${process.pid}`;
  rmSync(building, { force: true });
  await build(building);
  // The builder must close its database: closing the last connection folds the WAL into the file.
  if (existsSync(`${building}-wal`) && statSync(`${building}-wal`).size > 0)
    throw new Error(`template builder for ${path} left a non-empty WAL: close the database before returning`);
  for (const ext of ['-wal', '-shm']) rmSync(building + ext, { force: true });
  renameSync(building, path);
  return path;
}

/** A fresh temporary directory; remove it with `rmSync(dir, { recursive: true, force: true })`. */
export const tempDir = (prefix = 'coord-bench-'): string => mkdtempSync(join(tmpdir(), prefix));

/** Copies a template into a fresh temp dir; returns the copy's path and a cleanup function. */
export function freshCopy(template: string): { path: string; cleanup: () => void } {
  const dir = tempDir();
  const path = join(dir, 'bench.sqlite');
  copyFileSync(template, path);
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
