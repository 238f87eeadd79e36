import { explainFenceLoss } from '../../core/board/rules.js';
import type { Artifact } from '../../core/model.js';
import type { Outcome, PutArtifactCommand } from '../../core/ports.js';
import { type ArtifactRow, type TaskRow, toArtifact, toFacts } from '../shared/rows.js';
import type { Db } from './database.js';
import { stmt, type Tx } from './tx.js';

/** Only the current claim with a live lease may add an artifact (rule 5). */
const FENCE = `state = 'claimed' AND claim_id = @claim_id AND lease_until > @now`;

/** Rule 8: the artifact id is client-chosen; the same bytes again is a retry, other bytes a conflict. */
export function putArtifact(tx: Tx, cmd: PutArtifactCommand): Outcome<{ artifact: Artifact; created: boolean }> {
  const existing = stmt(tx.db, 'SELECT * FROM artifacts WHERE task_id = ? AND artifact_id = ?').get(
    cmd.task_id,
    cmd.artifact_id,
  ) as ArtifactRow | undefined;
  if (existing) {
    // Rule 5 holds for a retry too: without this, any claim_id (stale, even forged) got a success.
    const live = stmt(tx.db, `SELECT 1 FROM tasks WHERE id = @task_id AND ${FENCE}`).get({
      task_id: cmd.task_id,
      claim_id: cmd.claim_id,
      now: tx.now,
    });
    if (!live) return lost(tx, cmd);
    if (existing.sha256 !== cmd.sha256) return { ok: false, reason: 'artifact_conflict', sha256: existing.sha256 };
    return { ok: true, artifact: toArtifact(existing), created: false };
  }
  // Fenced insert.
  const row = stmt(
    tx.db,
    `INSERT INTO artifacts (task_id, artifact_id, name, content_type, size, sha256, bytes, claim_id, created_at)
     SELECT @task_id, @artifact_id, @name, @content_type, @size, @sha256, @bytes, @claim_id, @now
     WHERE EXISTS (SELECT 1 FROM tasks WHERE id = @task_id AND ${FENCE})
     RETURNING *`,
  ).get({
    task_id: cmd.task_id,
    artifact_id: cmd.artifact_id,
    name: cmd.name,
    content_type: cmd.content_type,
    size: cmd.bytes.byteLength,
    sha256: cmd.sha256,
    bytes: Buffer.from(cmd.bytes.buffer, cmd.bytes.byteOffset, cmd.bytes.byteLength),
    claim_id: cmd.claim_id,
    now: tx.now,
  }) as ArtifactRow | undefined;
  if (row) return { ok: true, artifact: toArtifact(row), created: true };
  return lost(tx, cmd);
}

function lost(tx: Tx, cmd: PutArtifactCommand) {
  const task = stmt(tx.db, 'SELECT * FROM tasks WHERE id = ?').get(cmd.task_id) as TaskRow | undefined;
  return explainFenceLoss(task ? toFacts(task) : null, cmd.claim_id, tx.now);
}

const LIST = `SELECT task_id, artifact_id, name, content_type, size, sha256, created_at FROM artifacts
  WHERE task_id = ? ORDER BY created_at, artifact_id`;

export function listArtifacts(db: Db, taskId: string): Artifact[] {
  return (stmt(db, LIST).all(taskId) as ArtifactRow[]).map(toArtifact);
}

export function getArtifact(
  db: Db,
  taskId: string,
  artifactId: string,
): { artifact: Artifact; bytes: Uint8Array } | null {
  const r = stmt(db, 'SELECT * FROM artifacts WHERE task_id = ? AND artifact_id = ?').get(taskId, artifactId) as
    | ArtifactRow
    | undefined;
  return r ? { artifact: toArtifact(r), bytes: new Uint8Array(r.bytes) } : null;
}
