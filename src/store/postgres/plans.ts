/**
 * A plan (SPEC §11) on PostgreSQL: its tasks in dependency order, one transaction, all or nothing; replayed by
 * key. The key's row is claimed first, so a concurrent post of the same plan waits on it, then replays ours.
 */
import type { Outcome, PlanCommand } from '../../core/ports.js';
import { checkLinkRows } from '../shared/deps-rows.js';
import { existingNamed, type PlanMade, plannedTasks, planParents, replayedPlan } from '../shared/deps-rules.js';
import { idempotencyConflict } from '../shared/idempotency.js';
import { type TaskRow, toTask } from '../shared/rows.js';
import { insertTask, linkRows } from './deps.js';
import { row, rows } from './sql.js';
import type { Tx } from './tx.js';

const PLAN_BY_KEY = 'SELECT payload_hash, refs FROM plans WHERE board = @board AND idempotency_key = @key';
const INSERT_PLAN = `INSERT INTO plans (board, idempotency_key, payload_hash, refs, created_at)
  VALUES (@board, @key, @hash, @refs::jsonb, @now::bigint) ON CONFLICT DO NOTHING RETURNING board`;

export async function createPlan(tx: Tx, cmd: PlanCommand): Promise<Outcome<PlanMade>> {
  const key = cmd.idempotency_key;
  if (key !== null) {
    const seen = await replay(tx, cmd, key);
    if (seen) return seen;
  }
  const existing = existingNamed(cmd);
  const found = await linkRows(tx.db, existing, true);
  const checked = checkLinkRows(found, cmd.board, cmd.agent, existing, null);
  if (!checked.ok) return checked;
  if (key !== null) {
    const mine = await row(tx.db, INSERT_PLAN, {
      board: cmd.board,
      key,
      hash: cmd.payload_hash,
      refs: '{}',
      now: tx.now,
    });
    if (!mine) {
      const seen = await replay(tx, cmd, key);
      if (seen) return seen;
    }
  }
  const ids = new Map<string, string>();
  const out: PlanMade['tasks'] = {};
  for (const t of plannedTasks(cmd, found, ids)) {
    const r = await insertTask(tx, t.cmd, t.links);
    ids.set(t.ref, r.id);
    out[t.ref] = toTask(r);
  }
  if (key !== null) {
    await row(tx.db, 'UPDATE plans SET refs = @refs::jsonb WHERE board = @board AND idempotency_key = @key', {
      board: cmd.board,
      key,
      refs: JSON.stringify(Object.fromEntries(ids)),
    });
  }
  // A parent of the plan has counted its children since its row was returned.
  for (const [ref, id] of planParents(cmd, ids)) {
    out[ref] = toTask((await row<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = @id', { id }))!);
  }
  return { ok: true, tasks: out, created: true };
}

async function replay(tx: Tx, cmd: PlanCommand, key: string): Promise<Outcome<PlanMade> | null> {
  const seen = await row<{ payload_hash: string; refs: Record<string, string> }>(tx.db, PLAN_BY_KEY, {
    board: cmd.board,
    key,
  });
  if (!seen) return null;
  const conflict = idempotencyConflict(seen, cmd.payload_hash, Object.values(seen.refs)[0] ?? '');
  if (conflict) return conflict;
  const found = await rows<TaskRow>(tx.db, 'SELECT * FROM tasks WHERE id = ANY (@ids::text[])', {
    ids: Object.values(seen.refs),
  });
  const byId = new Map(found.map((r) => [r.id, r]));
  return { ok: true, ...replayedPlan(seen.refs, (id) => byId.get(id)) };
}
