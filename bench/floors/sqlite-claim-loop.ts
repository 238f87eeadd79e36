/**
 * Floor: a bare better-sqlite3 claim-next loop, nothing of coord around it.
 *
 * The schema is a parameter (FloorSchema): the default mirrors the columns a
 * coordination task needs; coord's own DDL can be passed in instead to measure
 * the bare statement on coord's exact table and indexes.
 *
 * As a child (runChild('bench/floors/sqlite-claim-loop.ts', args)):
 *   { op: 'build',  path, rows, schema?, history? }   seed a template file
 *   { op: 'claims', path, claims, warmup, schema? }   → claims/s
 *   { op: 'cycle',  path, jobs, schema? }             → jobs/s (post, claim, fenced complete)
 */
import Database from 'better-sqlite3';
import { childMain, runChild } from '../lib/child.js';
import { templateDb } from '../lib/template-db.js';

export type Db = Database.Database;

export interface FloorSchema {
  /** CREATE TABLE/INDEX statements. */
  ddl: string;
  /** Bulk seed; named params @rows @board @t0 @state @agents (claimed_by = 'agent-' || i % @agents when @agents > 0). */
  seedSql: string;
  /** One claim: params (claimed_by, claim_id, lease_until, board); RETURNING the row. */
  claimSql: string;
  /** One post: params (id, board, title, body, priority, created_at). */
  postSql: string;
  /** Fenced completion: params (result, id, claim_id); changes = 1 when the claim still holds. */
  completeSql: string;
}

export const FLOOR_DDL = `
CREATE TABLE tasks (
  id          TEXT PRIMARY KEY,
  board       TEXT NOT NULL,
  kind        TEXT NOT NULL,
  title       TEXT NOT NULL,
  body        TEXT NOT NULL DEFAULT '',
  labels      TEXT NOT NULL DEFAULT '[]',
  for_agent   TEXT,
  created_by  TEXT NOT NULL,
  state       TEXT NOT NULL,
  priority    INTEGER NOT NULL DEFAULT 0,
  created_at  INTEGER NOT NULL,
  claimed_by  TEXT,
  claim_id    TEXT,
  lease_until INTEGER,
  attempts    INTEGER NOT NULL DEFAULT 0,
  result      TEXT
);
CREATE INDEX tasks_next ON tasks (board, state, priority, created_at);
CREATE INDEX tasks_holder ON tasks (claimed_by, state);
`;

export const FLOOR_SCHEMA: FloorSchema = {
  ddl: FLOOR_DDL,
  seedSql: `
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @rows)
INSERT INTO tasks (id, board, kind, title, body, created_by, state, priority, created_at, claimed_by, attempts)
SELECT printf('task-%08d', i), @board, 'bench', 'task ' || i, 'a small body for task number ' || i, 'bench',
       @state, i % 3, @t0 + i, CASE WHEN @agents > 0 THEN 'agent-' || (i % @agents) END,
       CASE WHEN @state = 'queued' THEN 0 ELSE 1 END
FROM n`,
  claimSql: `UPDATE tasks SET state = 'claimed', claimed_by = ?, claim_id = ?, lease_until = ?, attempts = attempts + 1
WHERE id = (SELECT id FROM tasks WHERE board = ? AND state = 'queued' ORDER BY priority, created_at LIMIT 1)
RETURNING *`,
  postSql: `INSERT INTO tasks (id, board, kind, title, body, created_by, state, priority, created_at)
VALUES (?, ?, 'bench', ?, ?, 'bench', 'queued', ?, ?)`,
  completeSql: `UPDATE tasks SET state = 'completed', result = ?
WHERE id = ? AND claim_id = ? AND state = 'claimed'`,
};

export const BOARD = 'default';

/**
 * Opens a file the way a daemon would: WAL, synchronous=NORMAL (or FULL: every commit synced, the per-request
 * durable floor of the group-commit rows), a busy timeout.
 */
export function openBenchDb(path: string, opts: { readonly?: boolean; synchronous?: 'NORMAL' | 'FULL' } = {}): Db {
  const db = new Database(path, { readonly: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous ?? 'NORMAL'}`);
  }
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Creates the schema from DDL (the floor's by default; pass coord's to compare on its table). */
export function createSchema(db: Db, ddl: string = FLOOR_DDL): void {
  db.exec(ddl);
}

export interface SeedOptions {
  rows: number;
  board?: string;
  /** 'queued' (a backlog) or a terminal state (history). */
  state?: string;
  /** Spread claimed_by over this many agents (history); 0 = none. */
  agents?: number;
  /** created_at of the first row (ms). */
  t0?: number;
}

export function seed(db: Db, schema: FloorSchema, o: SeedOptions): void {
  if (o.rows <= 0) return;
  db.transaction(() =>
    db.prepare(schema.seedSql).run({
      rows: o.rows,
      board: o.board ?? BOARD,
      state: o.state ?? 'queued',
      agents: o.agents ?? 0,
      t0: o.t0 ?? 1_700_000_000_000,
    }),
  )();
}

/** Builds a seeded file at `path` (then closes it, so the WAL is folded into the main file). */
export function buildSeededFile(path: string, schema: FloorSchema, parts: SeedOptions[], extraSql?: string): void {
  const db = openBenchDb(path);
  createSchema(db, schema.ddl);
  let t0 = 1_700_000_000_000;
  for (const p of parts) {
    seed(db, schema, { t0, ...p, board: p.board ?? BOARD });
    t0 += p.rows;
  }
  if (extraSql) db.exec(extraSql);
  db.exec('ANALYZE');
  // Rollback-journal mode at rest: the template can then be opened read-only in place;
  // openBenchDb switches a writable copy back to WAL.
  db.pragma('journal_mode = DELETE');
  db.close();
}

/** Claims `claims` tasks one statement at a time after `warmup` untimed claims; returns claims/s. */
export function claimLoop(db: Db, schema: FloorSchema, claims: number, warmup: number): number {
  const claim = db.prepare(schema.claimSql);
  const lease = Date.now() + 300_000;
  for (let i = 0; i < warmup; i++) {
    if (!claim.get('agent-w', `w${i}`, lease, BOARD)) throw new Error('queue ran dry during warmup');
  }
  const t0 = performance.now();
  for (let i = 0; i < claims; i++) {
    if (!claim.get(`agent-${i & 63}`, `c${i}`, lease, BOARD)) throw new Error(`queue ran dry after ${i} claims`);
  }
  return claims / ((performance.now() - t0) / 1000);
}

/**
 * The bare job cycle: post `jobs` tasks (one autocommit INSERT each), then claim and
 * fence-complete each (one UPDATE … RETURNING and one conditional UPDATE). Returns jobs/s
 * over the whole thing, the way the peers' enqueue + process cycles are timed.
 */
export function cycleLoop(db: Db, schema: FloorSchema, jobs: number): number {
  const post = db.prepare(schema.postSql);
  const claim = db.prepare(schema.claimSql);
  const complete = db.prepare(schema.completeSql);
  const lease = Date.now() + 300_000;
  const t0 = performance.now();
  for (let i = 0; i < jobs; i++) post.run(`job-${i}`, BOARD, `job ${i}`, '{"n":1}', 0, Date.now());
  for (let i = 0; i < jobs; i++) {
    const row = claim.get('agent-1', `c${i}`, lease, BOARD) as { id: string; claim_id: string } | undefined;
    if (!row) throw new Error(`queue ran dry after ${i} claims`);
    if (complete.run('{"ok":true}', row.id, row.claim_id).changes !== 1) throw new Error('fence lost');
  }
  return jobs / ((performance.now() - t0) / 1000);
}

/**
 * A cached, seeded template file (built in a child process the first time), e.g.
 * seededTemplate([{ rows: 100_000 }]) for a backlog, or
 * seededTemplate([{ rows: 10_000, state: 'completed', agents: 500 }]) for history.
 */
export function seededTemplate(
  parts: SeedOptions[],
  schema: FloorSchema = FLOOR_SCHEMA,
  extraSql?: string,
): Promise<string> {
  const key = JSON.stringify({ v: 2, parts, schema, extraSql });
  return templateDb(key, async (path) => {
    await runChild(FILE, { op: 'build', path, parts, schema, extraSql }, { timeoutMs: 300_000 });
  });
}

/** This file, for runChild. */
export const FILE = 'bench/floors/sqlite-claim-loop.ts';

interface ChildArgs {
  op: 'build' | 'claims' | 'cycle';
  path: string;
  rows?: number;
  claims?: number;
  warmup?: number;
  jobs?: number;
  parts?: SeedOptions[];
  extraSql?: string;
  schema?: FloorSchema;
}

childMain<ChildArgs>(FILE, (a) => {
  const schema = a.schema ?? FLOOR_SCHEMA;
  if (a.op === 'build') {
    buildSeededFile(a.path, schema, a.parts ?? [{ rows: a.rows ?? 0 }], a.extraSql);
    return { ok: true };
  }
  if (a.op === 'claims') {
    const db = openBenchDb(a.path);
    const rate = claimLoop(db, schema, a.claims ?? 10_000, a.warmup ?? 500);
    db.close();
    return rate;
  }
  // cycle: a fresh file with the schema and nothing in it
  const db = openBenchDb(a.path);
  createSchema(db, schema.ddl);
  const rate = cycleLoop(db, schema, a.jobs ?? 2_000);
  db.close();
  return rate;
});
