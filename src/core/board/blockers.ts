/**
 * A task's `blocked` list (SPEC §11): its blockers that have not landed, with their states now — and, for a
 * completed one whose commits are not merged yet, where they stand (`integration`). Those states live on the
 * blockers' own rows, so stores answer tasks with `blocked: []` and the operations that show tasks fill it in
 * here, with one lookup for the whole answer.
 *
 * Only a queued task that is not ready is blocked: blockers are added only to queued tasks, a claim needs
 * every blocker landed, a landed blocker stays landed, and a finished task (cancelled or expired while it
 * waited included) waits for nothing any more — its row never changes again.
 */
import type { Blocker, BlockerState, Task } from '../model.js';
import type { Store } from '../ports.js';

const mayBeBlocked = (t: Task): boolean => t.blocked_by.length > 0 && t.state === 'queued' && !t.ready;

/** A blocker as the task's JSON names it: its state, and its integration while completed but not merged. */
export const shownBlocker = (b: BlockerState): Blocker =>
  b.integration !== undefined && b.state === 'completed'
    ? { id: b.id, state: b.state, integration: b.integration }
    : { id: b.id, state: b.state };

/** The blockers among `states` that have not landed, as shown. */
export const openBlockers = (states: readonly BlockerState[]): Blocker[] =>
  states.filter((b) => !b.landed).map(shownBlocker);

export async function describeBlocked<T extends Iterable<Task>>(store: Store, tasks: T): Promise<T> {
  const need = [...tasks].filter(mayBeBlocked);
  if (need.length === 0) return tasks;
  const states = new Map(
    (await store.taskStates([...new Set(need.flatMap((t) => t.blocked_by))])).map((b) => [b.id, b]),
  );
  for (const t of need) {
    t.blocked = t.blocked_by.flatMap((id) => {
      const b = states.get(id);
      return b === undefined || b.landed ? [] : [shownBlocker(b)];
    });
  }
  return tasks;
}

/** A blocker in a line people read: `#k3x9 (claimed)`, or `#k3x9 (completed · conflict, waiting for merge)`. */
export const blockerText = (b: Blocker): string =>
  `#${b.id} (${b.integration ? `${b.state} · ${b.integration}, waiting for merge` : b.state})`;
