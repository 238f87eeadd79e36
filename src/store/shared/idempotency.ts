/**
 * SPEC rule 7, the idempotency comparison both stores make when a write carries a key (create task, plan,
 * note, message): the key names one intent. A row already under the key with the same payload hash is a
 * replay (the caller answers with what the first write made); another payload under the same key is
 * `idempotency_conflict`, naming what the first write made.
 */
import type { Lost } from '../../core/ports.js';

type Conflict = Extract<Lost, { reason: 'idempotency_conflict' }>;

/**
 * Null when `payload_hash` is the one the key was first written with (a replay); otherwise the conflict,
 * with `task_id` the id to name (the first write's task, plan's first task, note, or '' for a message).
 */
export const idempotencyConflict = (
  seen: { payload_hash: string },
  payload_hash: string,
  task_id: string,
): Conflict | null =>
  seen.payload_hash === payload_hash ? null : { ok: false, reason: 'idempotency_conflict', task_id };
