/**
 * A plan (SPEC §11) of both stores: its tasks in dependency order, one transaction, all or nothing; replayed by
 * key. The key's row is claimed first (PostgreSQL: a concurrent post of the same plan waits on it, then
 * replays ours). Programs (program.ts) over deps.ts's statements; and the tasks port's writes.
 */
import type { Outcome, PlanCommand } from '../../core/ports.js';
import { createTask, type DepsSql, insertTask, linkRows, setDeps, taskStates } from './deps.js';
import { checkLinkRows } from './deps-rows.js';
import { existingNamed, type PlanMade, plannedTasks, planParents, replayedPlan } from './deps-rules.js';
import { idempotencyConflict } from './idempotency.js';
import { all, get, type Prog, type Q, type Runner, run } from './program.js';
import { type TaskRow, toTask } from './rows.js';
import type { TasksPort } from './store-ports.js';

type W = Q<DepsSql>;

/** A plan made before under this key: its tasks as they are now (another payload: a conflict); null when new. */
function* replay(q: W, cmd: PlanCommand, key: string): Prog<Outcome<PlanMade> | null> {
  const seen = yield* get<{ payload_hash: string; refs: string | Record<string, string> }>(q.sql.planByKey, {
    board: cmd.board,
    key,
  });
  if (!seen) return null;
  // JSON text in SQLite, jsonb in PostgreSQL.
  const refs: Record<string, string> = typeof seen.refs === 'string' ? JSON.parse(seen.refs) : seen.refs;
  const conflict = idempotencyConflict(seen, cmd.payload_hash, Object.values(refs)[0] ?? '');
  if (conflict) return conflict;
  const found = yield* all<TaskRow>(q.sql.tasksByIds, { ids: Object.values(refs) });
  const byId = new Map(found.map((r) => [r.id, r]));
  return { ok: true, ...replayedPlan(refs, (id) => byId.get(id)) };
}

function* createPlan(q: W, cmd: PlanCommand): Prog<Outcome<PlanMade>> {
  const key = cmd.idempotency_key;
  if (key !== null) {
    const seen = yield* replay(q, cmd, key);
    if (seen) return seen;
  }
  // Existing tasks the plan names: every one is checked (locked) before the first insert.
  const existing = existingNamed(cmd);
  const found = yield* linkRows(q.sql, existing, true);
  const checked = checkLinkRows(found, cmd.board, cmd.agent, existing, null);
  if (!checked.ok) return checked;
  const plan = { board: cmd.board, key, hash: cmd.payload_hash, now: q.now };
  if (key !== null && !(yield* get(q.sql.insertPlan, { ...plan, refs: '{}' }))) {
    const seen = yield* replay(q, cmd, key);
    if (seen) return seen;
  }
  const ids = new Map<string, string>();
  const out: PlanMade['tasks'] = {};
  for (const t of plannedTasks(cmd, found, ids)) {
    const r = yield* insertTask(q, t.cmd, t.links);
    ids.set(t.ref, r.id);
    out[t.ref] = toTask(r);
  }
  if (key !== null) yield* run(q.sql.setPlanRefs, { ...plan, refs: JSON.stringify(Object.fromEntries(ids)) });
  // A parent created earlier in the plan has counted its children since its row was returned.
  for (const [ref, id] of planParents(cmd, ids)) out[ref] = toTask((yield* get<TaskRow>(q.sql.task, { id }))!);
  return { ok: true, tasks: out, created: true };
}

/** The writes of the tasks port (a task, its edges, a plan) and the blockers' states, over a store's runner. */
export const taskWritesPort = (
  r: Runner<DepsSql>,
): Pick<TasksPort, 'createTask' | 'setDeps' | 'createPlan' | 'taskStates'> => ({
  createTask: (cmd) => r.write((q) => createTask(q, cmd)),
  setDeps: (cmd) => r.write((q) => setDeps(q, cmd)),
  createPlan: (cmd) => r.write((q) => createPlan(q, cmd)),
  taskStates: (ids) => r.read((sql) => taskStates(sql, ids)),
});
