import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A backend's numbered, append-only migrations (`NNNN-name.sql` in `dir`), in order. */
export function readMigrations(dir: URL): Migration[] {
  const all = readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(new URL(f, dir), 'utf8') }));
  // Two branches that each added "the next" migration merge into two files with one number: the
  // migrator would record one version and silently skip the other file's SQL on every later start.
  all.forEach((m, i) => {
    const prev = all[i - 1];
    if (prev && prev.version === m.version) {
      throw new Error(`two migrations share number ${m.version}: ${prev.name} and ${m.name} — renumber one`);
    }
  });
  return all;
}

/** A store's migrations (`src/store/<store>/migrations/`, beside its code in dist too). */
export const storeMigrations = (store: 'sqlite' | 'postgres'): Migration[] =>
  readMigrations(new URL(`../${store}/migrations/`, import.meta.url));
