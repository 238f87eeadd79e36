/**
 * A task's `blocked` list (SPEC §11): its open blockers with their states now.
 * Those states live on the blockers' own rows, so stores answer tasks with
 * `blocked: []` and the operations that show tasks fill it in here, with one
 * lookup for the whole answer.
 *
 * Only a task that is queued and not ready, cancelled or expired can have an
 * open blocker: blockers are added only to queued tasks, a claim needs every
 * blocker completed, and a completed blocker stays completed.
 */
import type { Task } from './model.js';
import type { Store } from './ports.js';

const mayBeBlocked = (t: Task): boolean =>
  t.blocked_by.length > 0 && ((t.state === 'queued' && !t.ready) || t.state === 'cancelled' || t.state === 'expired');

export async function describeBlocked<T extends Iterable<Task>>(store: Store, tasks: T): Promise<T> {
  const need = [...tasks].filter(mayBeBlocked);
  if (need.length === 0) return tasks;
  const states = new Map(
    (await store.taskStates([...new Set(need.flatMap((t) => t.blocked_by))])).map((b) => [b.id, b.state]),
  );
  for (const t of need) {
    t.blocked = t.blocked_by.flatMap((id) => {
      const state = states.get(id);
      return state === undefined || state === 'completed' ? [] : [{ id, state }];
    });
  }
  return tasks;
}
