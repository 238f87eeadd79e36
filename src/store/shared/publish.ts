import type { CoordEvent } from '../../core/model.js';
import type { EventListener } from '../../core/ports.js';

/**
 * Hands committed events to every listener. A listener that throws must not
 * turn an already-committed write into an error for its caller (SPEC rule 14:
 * a 2xx means committed, and a non-2xx must mean it was not), nor keep the
 * other listeners from hearing the batch: its error becomes a process warning.
 */
export function publishTo(listeners: Iterable<EventListener>, events: CoordEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listeners) {
    try {
      listener(events);
    } catch (e) {
      process.emitWarning(`coord: an event listener failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
