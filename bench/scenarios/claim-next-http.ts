/**
 * claim-next over HTTP, 50 keep-alive connections.
 * coord: the real daemon (`node bin/coord.js serve`, from dist/) on a copy of the seeded file, POST /v1/claim
 *        with its bearer token: guard, JSON parse, zod, claim_next operation, SqliteStore, JSON answer.
 * floor: bare node:http server (own process) doing one autocommit claim UPDATE per POST (floors/bare-http-claim-server.ts),
 *        on the same seeded file (coord's schema, bench/coord/schema.ts).
 * Both are loaded by autocannon in another process (lib/autocannon-client.ts).
 * Two rows: durable (coord's default, group commit) vs a floor that syncs each claim (synchronous=FULL),
 * target ≥ 1.5×; and `--durability normal` vs the floor at NORMAL, target ≥ 0.8×.
 */
import Database from 'better-sqlite3';
import { startCoordDaemon } from '../coord/daemon.js';
import { coordSchema } from '../coord/schema.js';
import { FILE as CLAIM_SERVER } from '../floors/bare-http-claim-server.js';
import { seededTemplate } from '../floors/sqlite-claim-loop.js';
import { runAutocannon } from '../lib/autocannon-client.js';
import { startServer } from '../lib/child.js';
import { pick } from '../lib/config.js';
import { freshCopy } from '../lib/template-db.js';
import { defineScenario } from '../lib/types.js';

export const ROWS = 100_000;
export const CONNECTIONS = 50;
export const DURATION_S = pick(1, 5);
export const WARMUP_S = pick(0.5, 1);

let template = '';

/** Queued tasks left in a SQLite file (read from a second, read-only connection). */
export function queuedLeft(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT count(*) FROM tasks WHERE state = 'queued'").pluck().get() as number;
  } finally {
    db.close();
  }
}

/** Loads `url` with autocannon (other process); the caller's server must answer POST with a claim. */
export async function loadClaims(
  url: string,
  body = '{"agent":"bench-agent"}',
  headers: Record<string, string> = {},
): Promise<{ value: number; extra: Record<string, number> }> {
  const r = await runAutocannon({
    url,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    method: 'POST',
    body,
    headers,
  });
  if (r.errors > 0 || r.non2xx > 0) throw new Error(`${r.errors} errors, ${r.non2xx} non-2xx answers`);
  return { value: r.rps, extra: { p50_ms: r.p50_ms, p99_ms: r.p99_ms } };
}

/** The daemon's group-commit counters (GET /v1/health, SQLite only). */
async function commitStats(url: string, headers: Record<string, string>): Promise<{ commits: number; writes: number }> {
  const h = (await (await fetch(`${url}/v1/health`, { headers })).json()) as {
    group_commit?: { commits: number; writes: number };
  };
  return h.group_commit ?? { commits: 0, writes: 0 };
}

/** coord's daemon (from dist/) claiming from a copy of `seeded` under load; its group-commit batching in extra. */
export async function coordClaims(
  seeded: string,
  durability: 'full' | 'normal',
  nodeArgs: string[] = [],
): Promise<{ value: number; extra: Record<string, number> }> {
  const d = await startCoordDaemon({
    dbFile: seeded,
    env: durability === 'normal' ? { COORD_DURABILITY: 'normal' } : {},
    ...(nodeArgs.length > 0 ? { nodeArgs } : {}),
  });
  try {
    const before = await commitStats(d.url, d.headers);
    const m = await loadClaims(`${d.url}/v1/claim`, '{"agent":"bench-agent"}', d.headers);
    const after = await commitStats(d.url, d.headers);
    if (queuedLeft(`${d.stateDir}/coord.db`) === 0) throw new Error('queue ran dry: raise ROWS');
    const commits = after.commits - before.commits;
    return {
      value: m.value,
      extra: { ...m.extra, writes_per_commit: commits ? (after.writes - before.writes) / commits : 0 },
    };
  } finally {
    await d.stop().catch(() => {});
  }
}

/**
 * Durable ('full', the default): coord's group commit vs a floor that syncs every claim (synchronous=FULL,
 * one autocommit UPDATE per request). 'normal': coord `--durability normal` vs the same floor at NORMAL.
 */
export function claimNextHttp(durability: 'full' | 'normal') {
  const sync = durability === 'full' ? 'FULL' : 'NORMAL';
  return defineScenario({
    name: `claim-next over HTTP, ${CONNECTIONS} keep-alive connections, ${
      durability === 'full'
        ? 'durable (coord group commit vs per-request FULL)'
        : '--durability normal (vs per-request NORMAL)'
    }`,
    metric: 'requests/s',
    unit: 'req/s',
    better: 'higher',
    target: { kind: 'ratio_to_floor_min', value: durability === 'full' ? 1.5 : 0.8 },
    note: `autocannon in another process, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, ${ROWS / 1000}k queued (coord's schema for both); coord = the daemon from dist/ with its bearer token${
      durability === 'normal' ? ' and --durability normal' : ''
    }; floor at synchronous=${sync}, one commit per request; extra.writes_per_commit = coord's writes ÷ its commits over the run (GET /v1/health); load generator and server share the 2 cores`,
    async setup() {
      template = await seededTemplate([{ rows: ROWS }], coordSchema());
    },
    contenders: {
      coord: () => coordClaims(template, durability),
      floor: async () => {
        const db = freshCopy(template);
        const server = await startServer(CLAIM_SERVER, { path: db.path, schema: coordSchema(), synchronous: sync });
        try {
          const m = await loadClaims(`${server.url}/claim`);
          const stats = (await (await fetch(`${server.url}/stats`)).json()) as { empty: number };
          if (stats.empty > 0) throw new Error(`queue ran dry (${stats.empty} empty claims): raise ROWS`);
          return m;
        } finally {
          await server.stop();
          db.cleanup();
        }
      },
    },
  });
}

export default claimNextHttp('full');
