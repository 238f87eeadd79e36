/**
 * Where the PostgreSQL scenarios get a database:
 *   1. test/support/postgres.ts (startPostgres() → { createDatabase(): Promise<url>, stop() })
 *      when it exists — the embedded PostgreSQL the tests use;
 *   2. else the URL in COORD_BENCH_PG_URL;
 *   3. else the scenarios are skipped, saying why.
 * One server is started per bench run and stopped when the run ends; every
 * caller of pgDatabase() gets a database of its own.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { repoPath } from './child.js';
import { onRunEnd } from './run-end.js';

interface PgSupport {
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

const SUPPORT = repoPath('test/support/postgres.ts');
let support: Promise<PgSupport | string> | undefined;

function load(): Promise<PgSupport | string> {
  support ??= (async () => {
    if (existsSync(SUPPORT)) {
      try {
        const mod = (await import(pathToFileURL(SUPPORT).href)) as { startPostgres?: () => Promise<PgSupport> };
        if (typeof mod.startPostgres !== 'function') return 'test/support/postgres.ts has no startPostgres()';
        const pg = await mod.startPostgres();
        onRunEnd(() => pg.stop());
        return pg;
      } catch (err) {
        return `test/support/postgres.ts failed to start PostgreSQL: ${(err as Error).message}`;
      }
    }
    const url = process.env.COORD_BENCH_PG_URL;
    if (url) return { createDatabase: async () => url, stop: async () => {} };
    return 'no PostgreSQL: test/support/postgres.ts has not landed and COORD_BENCH_PG_URL is unset';
  })();
  return support;
}

/** Null when PostgreSQL is available, else the reason it is not. */
export async function pgUnavailable(): Promise<string | null> {
  const s = await load();
  return typeof s === 'string' ? s : null;
}

/** A database URL (fresh database with test/support; the shared COORD_BENCH_PG_URL otherwise). */
export async function pgDatabase(): Promise<string> {
  const s = await load();
  if (typeof s === 'string') throw new Error(s);
  return s.createDatabase();
}
