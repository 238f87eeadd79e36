/**
 * A task's `integration` (SPEC §15). It lives in the queue's own rows, so the operations that show tasks
 * fill it in here with one lookup for the whole answer, as blockers.ts does for `blocked`. Only a completed
 * task can have one; every other task's is `none`.
 */

import type { Task } from '../model.js';
import type { Store } from '../ports.js';
import { shownIntegration } from './integration.js';

export async function describeIntegration<T extends Iterable<Task>>(store: Store, tasks: T): Promise<T> {
  const completed = [...tasks].filter((t) => t.state === 'completed');
  const found = completed.length > 0 ? await store.integrationsOf(completed.map((t) => t.id)) : {};
  for (const t of tasks) {
    const i = found[t.id];
    t.integration = i ? shownIntegration(i) : { state: 'none' };
    // The change record gains `merged_as` once merged (SPEC §15); the stored record itself stays as submitted.
    if (i?.state === 'merged' && i.commit && t.change) t.change = { ...t.change, merged_as: i.commit };
  }
  return tasks;
}
