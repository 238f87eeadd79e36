import { explainFenceLoss } from '../../core/board/rules.js';
import type { Artifact } from '../../core/model.js';
import type { Outcome, PutArtifactCommand } from '../../core/ports.js';
import { type ArtifactRow, toArtifact, toFacts } from '../shared/rows.js';
import type { Queryable } from './database.js';
import { currentRow } from './fenced.js';
import { row, rows } from './sql.js';
import type { Tx } from './tx.js';

const BY_ID = 'SELECT * FROM artifacts WHERE task_id = @task_id AND artifact_id = @artifact_id';

// Only the current claim with a live lease may add an artifact (rule 5). FOR SHARE holds
// that claim in place until we commit, so a concurrent submit cannot slip in between.
const LIVE_CLAIM = `SELECT id FROM tasks WHERE id = @task_id AND state = 'claimed' AND claim_id = @claim_id
  AND lease_until > @now::bigint FOR SHARE`;

const INSERT = `WITH live AS (${LIVE_CLAIM})
  INSERT INTO artifacts (task_id, artifact_id, name, content_type, size, sha256, bytes, claim_id, created_at)
  SELECT live.id, @artifact_id, @name, @content_type, @size, @sha256, @bytes, @claim_id, @now::bigint FROM live
  ON CONFLICT DO NOTHING RETURNING *`;

async function lost(tx: Tx, cmd: PutArtifactCommand) {
  const task = await currentRow(tx, cmd.task_id);
  return explainFenceLoss(task ? toFacts(task) : null, cmd.claim_id, tx.now);
}

/** Rule 8: the artifact id is client-chosen; the same bytes again is a retry, other bytes a conflict. */
export async function putArtifact(
  tx: Tx,
  cmd: PutArtifactCommand,
): Promise<Outcome<{ artifact: Artifact; created: boolean }>> {
  const fence = { task_id: cmd.task_id, claim_id: cmd.claim_id, now: tx.now };
  for (;;) {
    const existing = await row<ArtifactRow>(tx.db, BY_ID, cmd);
    if (existing) {
      // Rule 5 holds for a retry too: a stale or forged claim_id never gets a success.
      if (!(await row(tx.db, LIVE_CLAIM, fence))) return lost(tx, cmd);
      if (existing.sha256 !== cmd.sha256) return { ok: false, reason: 'artifact_conflict', sha256: existing.sha256 };
      return { ok: true, artifact: toArtifact(existing), created: false };
    }
    const r = await row<ArtifactRow>(tx.db, INSERT, {
      ...fence,
      artifact_id: cmd.artifact_id,
      name: cmd.name,
      content_type: cmd.content_type,
      size: cmd.bytes.byteLength,
      sha256: cmd.sha256,
      bytes: Buffer.from(cmd.bytes.buffer, cmd.bytes.byteOffset, cmd.bytes.byteLength),
    });
    if (r) return { ok: true, artifact: toArtifact(r), created: true };
    // A concurrent upload of the same id committed first (the primary key made us wait): compare with it.
    if (await row(tx.db, BY_ID, cmd)) continue;
    return lost(tx, cmd);
  }
}

const LIST = `SELECT task_id, artifact_id, name, content_type, size, sha256, created_at FROM artifacts
  WHERE task_id = @task_id ORDER BY created_at, artifact_id`;

export async function listArtifacts(db: Queryable, taskId: string): Promise<Artifact[]> {
  return (await rows<ArtifactRow>(db, LIST, { task_id: taskId })).map(toArtifact);
}

export async function getArtifact(
  db: Queryable,
  taskId: string,
  artifactId: string,
): Promise<{ artifact: Artifact; bytes: Uint8Array } | null> {
  const r = await row<ArtifactRow>(db, BY_ID, { task_id: taskId, artifact_id: artifactId });
  return r ? { artifact: toArtifact(r), bytes: new Uint8Array(r.bytes) } : null;
}
