/** A plan (SPEC §11) on SQLite: its tasks in dependency order, one transaction, all or nothing; replayed by key. */
import type { Outcome, PlanCommand } from '../../core/ports.js';
import { checkLinkRows } from '../shared/deps-rows.js';
import { existingNamed, type PlanMade, plannedTasks, planParents, replayedPlan } from '../shared/deps-rules.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { toTask } from '../shared/rows.js';
import { insertTask, linkRows, rowOf } from './deps.js';
import { stmt, type Tx } from './tx.js';

/** A plan made before under this key: its tasks as they are now (another payload: a conflict); null when new. */
function replayPlan(tx: Tx, cmd: PlanCommand): Outcome<PlanMade> | null {
  if (cmd.idempotency_key === null) return null;
  const seen = stmt(tx.db, 'SELECT * FROM plans WHERE board = ? AND idempotency_key = ?').get(
    cmd.board,
    cmd.idempotency_key,
  ) as { payload_hash: string; refs: string } | undefined;
  if (!seen) return null;
  const refs = JSON.parse(seen.refs) as Record<string, string>;
  const conflict = idempotencyConflict(seen, cmd.payload_hash, Object.values(refs)[0] ?? '');
  return conflict ?? { ok: true, ...replayedPlan(refs, (id) => rowOf(tx.db, id)) };
}

export function createPlan(tx: Tx, cmd: PlanCommand): Outcome<PlanMade> {
  const replayed = replayPlan(tx, cmd);
  if (replayed) return replayed;
  // Existing tasks the plan names: every one is checked before the first insert.
  const existing = existingNamed(cmd);
  const found = linkRows(tx.db, existing);
  const checked = checkLinkRows(found, cmd.board, cmd.agent, existing, null);
  if (!checked.ok) return checked;
  const ids = new Map<string, string>();
  const out: PlanMade['tasks'] = {};
  for (const t of plannedTasks(cmd, found, ids)) {
    const row = insertTask(tx, t.cmd, t.links);
    ids.set(t.ref, row.id);
    out[t.ref] = toTask(row);
  }
  if (cmd.idempotency_key !== null) {
    stmt(
      tx.db,
      'INSERT INTO plans (board, idempotency_key, payload_hash, refs, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(cmd.board, cmd.idempotency_key, cmd.payload_hash, JSON.stringify(Object.fromEntries(ids)), tx.now);
  }
  // A parent created earlier in the plan has counted its children since its row was returned.
  for (const [ref, id] of planParents(cmd, ids)) out[ref] = toTask(rowOf(tx.db, id)!);
  return { ok: true, tasks: out, created: true };
}
