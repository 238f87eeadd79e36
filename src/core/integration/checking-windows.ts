/**
 * The windows the integrator is checking now (SPEC §15), from the events: the catalogue's part that the
 * integration room owns. Like event-entries.ts it imports nothing at run time (types only): `npm run
 * catalogue:dump` puts both into the dashboard's event-catalogue.js, where board.js calls these functions.
 */
import type { EventData } from '../events.js';
import type { CoordEvent } from '../model.js';

/** SPEC §15: tasks the integrator is checking together (an `integration.window` event), as a view shows them. */
export interface CheckingWindow {
  seq: number;
  board: string;
  target: string;
  /** The tasks not decided yet, in integration order. */
  tasks: string[];
  size: number;
  lane?: number | undefined;
}

/**
 * The windows being checked now, after one more event (coord top's board-state.ts, the dashboard's app.js): a
 * window event starts a group, and its tasks leave any older group (they are checked again in this one); a
 * task's result (task.integrated, task.integration) takes it out of its group; a group with no task left is
 * gone. So a window shows from the moment its checks start until each of its tasks is decided.
 */
export function checkingAfter(windows: readonly CheckingWindow[], e: CoordEvent): CheckingWindow[] {
  if (e.type === 'integration.window') {
    const d = e.data as EventData<'integration.window'>;
    const started: CheckingWindow = {
      seq: e.seq,
      board: e.board,
      target: d.target,
      tasks: [...d.tasks],
      size: d.size,
      ...(d.lane === undefined ? {} : { lane: d.lane }),
    };
    const taken = new Set(d.tasks);
    return [...without(windows, (id) => taken.has(id)), started];
  }
  if ((e.type === 'task.integrated' || e.type === 'task.integration') && e.task_id) {
    const id = e.task_id;
    return windows.some((w) => w.tasks.includes(id)) ? without(windows, (t) => t === id) : [...windows];
  }
  return [...windows];
}

const without = (windows: readonly CheckingWindow[], out: (id: string) => boolean): CheckingWindow[] =>
  windows.map((w) => ({ ...w, tasks: w.tasks.filter((id) => !out(id)) })).filter((w) => w.tasks.length > 0);

/** `checking together: #a #b #c (window 3)` — the line coord top and the dashboard show for a window. */
export function checkingText(w: CheckingWindow): string {
  const lane = w.lane === undefined ? '' : `, lane ${w.lane}`;
  const what = w.tasks.length === 1 ? 'checking' : 'checking together:';
  return `${what} ${w.tasks.map((id) => `#${id}`).join(' ')} on ${w.target} (window ${w.size}${lane})`;
}
