/**
 * Artifacts (SPEC rule 8) of both stores, written once with their statements: PostgreSQL's text, which
 * SQLite's runner runs without its casts and row locks (program.ts). Only the current claim with a live lease
 * may add one (rule 5); PostgreSQL holds that claim FOR SHARE until COMMIT, so a concurrent submit cannot slip
 * in between (SQLite has one writer at a time).
 */
import { explainFenceLoss } from '../../core/board/rules.js';
import type { Artifact } from '../../core/model.js';
import type { Outcome, PutArtifactCommand } from '../../core/ports.js';
import { all, get, type Prog, type Q, type Runner } from './program.js';
import { type ArtifactRow, type TaskRow, toArtifact, toFacts } from './rows.js';
import type { TasksPort } from './store-ports.js';

const LIVE_CLAIM = `SELECT id FROM tasks WHERE id = @task_id AND state = 'claimed' AND claim_id = @claim_id
  AND lease_until > @now::bigint FOR SHARE`;

export const ARTIFACTS_SQL = {
  byId: 'SELECT * FROM artifacts WHERE task_id = @task_id AND artifact_id = @artifact_id',
  liveClaim: LIVE_CLAIM,
  // WHERE true: SQLite reads an ON after FROM as a join's without it.
  insert: `WITH live AS (${LIVE_CLAIM})
    INSERT INTO artifacts (task_id, artifact_id, name, content_type, size, sha256, bytes, claim_id, created_at)
    SELECT live.id, @artifact_id, @name, @content_type, @size, @sha256, @bytes, @claim_id, @now::bigint FROM live
    WHERE true ON CONFLICT DO NOTHING RETURNING *`,
  task: 'SELECT * FROM tasks WHERE id = @id',
  list: `SELECT task_id, artifact_id, name, content_type, size, sha256, created_at FROM artifacts
    WHERE task_id = @task_id ORDER BY created_at, artifact_id`,
};
type ArtifactsSql = typeof ARTIFACTS_SQL;

function* lost(q: Q<ArtifactsSql>, cmd: PutArtifactCommand) {
  const task = yield* get<TaskRow>(q.sql.task, { id: cmd.task_id });
  return explainFenceLoss(task ? toFacts(task) : null, cmd.claim_id, q.now);
}

/** Rule 8: the artifact id is client-chosen; the same bytes again is a retry, other bytes a conflict. */
function* putArtifact(
  q: Q<ArtifactsSql>,
  cmd: PutArtifactCommand,
): Prog<Outcome<{ artifact: Artifact; created: boolean }>> {
  const key = { task_id: cmd.task_id, artifact_id: cmd.artifact_id };
  const fence = { task_id: cmd.task_id, claim_id: cmd.claim_id, now: q.now };
  for (;;) {
    const existing = yield* get<ArtifactRow>(q.sql.byId, key);
    if (existing) {
      // Rule 5 holds for a retry too: a stale or forged claim_id never gets a success.
      if (!(yield* get(q.sql.liveClaim, fence))) return yield* lost(q, cmd);
      if (existing.sha256 !== cmd.sha256) return { ok: false, reason: 'artifact_conflict', sha256: existing.sha256 };
      return { ok: true, artifact: toArtifact(existing), created: false };
    }
    const r = yield* get<ArtifactRow>(q.sql.insert, {
      ...fence,
      artifact_id: cmd.artifact_id,
      name: cmd.name,
      content_type: cmd.content_type,
      size: cmd.bytes.byteLength,
      sha256: cmd.sha256,
      bytes: Buffer.from(cmd.bytes.buffer, cmd.bytes.byteOffset, cmd.bytes.byteLength),
    });
    if (r) return { ok: true, artifact: toArtifact(r), created: true };
    // A concurrent upload of the same id committed first (PostgreSQL: the primary key made us wait): compare.
    if (yield* get(q.sql.byId, key)) continue;
    return yield* lost(q, cmd);
  }
}

/** The artifacts' part of the tasks port, over a store's runner. */
export const artifactsPort = (
  r: Runner<ArtifactsSql>,
): Pick<TasksPort, 'putArtifact' | 'getArtifact' | 'listArtifacts'> => ({
  putArtifact: (cmd) => r.write((q) => putArtifact(q, cmd)),
  getArtifact: (task_id, artifact_id) =>
    r.read(function* (sql) {
      const a = yield* get<ArtifactRow>(sql.byId, { task_id, artifact_id });
      return a ? { artifact: toArtifact(a), bytes: new Uint8Array(a.bytes) } : null;
    }),
  listArtifacts: (task_id) =>
    r.read(function* (sql) {
      return (yield* all<ArtifactRow>(sql.list, { task_id })).map(toArtifact);
    }),
});
