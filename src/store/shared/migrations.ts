import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A backend's numbered, append-only migrations (`NNNN-name.sql` in `dir`), in order. */
export function readMigrations(dir: URL): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(new URL(f, dir), 'utf8') }));
}
