/**
 * coord's real SQLite schema as a FloorSchema, so the bare floors run on the very
 * table and indexes coord uses (same schema size) and coord and floor can share one
 * seeded template file.
 *
 * The DDL is coord's migrations, concatenated, followed by `PRAGMA user_version = N`:
 * coord's store then opens a seeded file without migrating it again. The floor's
 * statements stay the bare ones (one claim UPDATE … RETURNING, one INSERT, one fenced
 * UPDATE) on coord's table; the claim asks for a ready task (blockers_open = 0), as
 * every claim on that table must since dependencies (SPEC §11), so it finds the task
 * by the index coord's claim uses (tasks_ready).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { FLOOR_SCHEMA, type FloorSchema } from '../floors/sqlite-claim-loop.js';
import { repoPath } from '../lib/child.js';

const MIGRATIONS = 'src/store/sqlite/migrations';

function migrations(): { version: number; sql: string }[] {
  const dir = repoPath(MIGRATIONS);
  return readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), sql: readFileSync(`${dir}/${f}`, 'utf8') }));
}

/** coord's DDL, and the user_version that tells coord's store the file is migrated. */
export function coordDdl(): string {
  const ms = migrations();
  return `${ms.map((m) => m.sql).join('\n')}\nPRAGMA user_version = ${Math.max(0, ...ms.map((m) => m.version))};\n`;
}

/** Far in the future (2100-01-01): seeded queued tasks never expire during a run. */
export const FAR_EXPIRY = 4_102_444_800_000;

/** Short ids (coord's task ids are ≤ 12 characters): t0000000, t0000001, … */
const ID = "printf('t%07d', @t0 + i - 1700000000000)";

function readyClaim(sql: string): string {
  const ready = sql.replace("state = 'queued' ORDER BY", "state = 'queued' AND blockers_open = 0 ORDER BY");
  if (ready === sql) throw new Error('the floor claim changed: say again how it asks for a ready task');
  return ready;
}

export function coordSchema(): FloorSchema {
  return {
    ddl: coordDdl(),
    seedSql: `
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @rows)
INSERT INTO tasks (id, board, kind, title, body, priority, labels, created_by, state, claimed_by, claim_id, attempts,
                   result_status, result, created_at, updated_at, expires_at, payload_hash, claim_end)
SELECT ${ID}, @board, 'bench', 'task ' || i, 'a small body for task number ' || i, i % 3, '[]', 'bench',
       @state, CASE WHEN @agents > 0 THEN 'agent-' || (i % @agents) END,
       CASE WHEN @state = 'queued' THEN NULL ELSE 'c' || i END,
       CASE WHEN @state = 'queued' THEN 0 ELSE 1 END,
       CASE WHEN @state IN ('completed', 'failed') THEN @state END,
       CASE WHEN @state IN ('completed', 'failed') THEN 'null' END,
       @t0 + i, @t0 + i, ${FAR_EXPIRY}, 'h',
       CASE WHEN @state IN ('completed', 'failed') THEN 'submitted' END
FROM n`,
    // On coord's table a queued task is claimable when it is ready (blockers_open = 0, SPEC §11): the bare claim
    // asks for that, as coord's does, and finds it by the same index (tasks_ready).
    claimSql: readyClaim(FLOOR_SCHEMA.claimSql),
    // params (id, board, title, body, priority, created_at), as FloorSchema defines them.
    postSql: `INSERT INTO tasks (id, board, kind, title, body, created_by, state, priority, created_at, updated_at,
                   expires_at, payload_hash)
SELECT ?, ?, 'bench', ?, ?, 'bench', 'queued', p.priority, p.at, p.at, p.at + 86400000, 'h'
FROM (SELECT ? AS priority, ? AS at) AS p`,
    completeSql: FLOOR_SCHEMA.completeSql,
  };
}
