/**
 * Seeds a coord SQLite file (every migration applied) with `rows` queued tasks,
 * of which `blocked` wait for one task that stays claimed: the claim-next rows of
 * SPEC §11. The blocked ones are the OLDER tasks, so a claim-next that had to
 * walk past them would pay for every one. Runs under tsx (it imports src/).
 *
 *   { path, rows, blocked } → rows written
 */
import { openDatabase } from '../../src/store/sqlite/database.js';
import { BOARD } from '../floors/sqlite-claim-loop.js';
import { childMain, runChild } from '../lib/child.js';
import { templateDb } from '../lib/template-db.js';

export const FILE = 'bench/coord/deps-seed.ts';

interface SeedArgs {
  path: string;
  rows: number;
  blocked: number;
}

/** The seeded template for these sizes (built once into bench/.cache). */
export const depsTemplate = (rows: number, blocked: number): Promise<string> =>
  templateDb(`deps-seed v1 ${rows} ${blocked}`, async (path) => {
    await runChild(FILE, { path, rows, blocked }, { timeoutMs: 600_000 });
  });

childMain<SeedArgs>(FILE, (a) => {
  const db = openDatabase(a.path);
  const t0 = Date.UTC(2026, 0, 1);
  const far = t0 + 365 * 86_400_000 * 10;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO tasks (id, board, kind, title, body, created_by, state, claimed_by, claim_id, lease_until, attempts,
                          created_at, updated_at, expires_at, payload_hash)
       VALUES ('gate', @board, 'bench', 'the gate', '', 'bench', 'claimed', 'holder', 'c_gate', @far, 1,
               @t0, @t0, @far, 'x')`,
    ).run({ board: BOARD, t0, far });
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @rows)
       INSERT INTO tasks (id, board, kind, title, body, created_by, state, created_at, updated_at, expires_at,
                          payload_hash, blocked_by, blockers_open)
       SELECT printf('t%07d', i), @board, 'bench', 'task ' || i, 'a small body for task number ' || i, 'bench',
              'queued', @t0 + 1 + i, @t0 + 1 + i, @far, 'x',
              CASE WHEN i < @blocked THEN '["gate"]' ELSE '[]' END, CASE WHEN i < @blocked THEN 1 ELSE 0 END
       FROM n`,
    ).run({ rows: a.rows, blocked: a.blocked, board: BOARD, t0, far });
    db.prepare(
      `INSERT INTO task_deps (task_id, blocker_id)
       SELECT id, 'gate' FROM tasks WHERE blockers_open = 1`,
    ).run();
  })();
  db.close();
  return a.rows;
});
