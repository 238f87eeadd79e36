/**
 * SPEC §14 and §16: an agent's session — a local MCP session or a remote connector — is never handed
 * another agent's `lock_id`. It could not end that lock anyway (unlock_files is `forbidden` on another's
 * lock), and a connector is a party outside this machine. A conflict still names each holder, its paths,
 * its lease, its work tree and task: everything an agent needs to work around it or ask its holder.
 */
import { CoordError } from '../../core/errors.js';

/** `value` with the `lock_id` of every `{holder, lock_id}` entry whose holder is not `agent` left out. */
export function withoutOthersLockIds<T>(value: T, agent: string): T {
  if (Array.isArray(value)) return value.map((v) => withoutOthersLockIds(v, agent)) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const holder = (value as { holder?: unknown }).holder;
  const others = typeof holder === 'string' && holder !== agent;
  return Object.fromEntries(
    entries.filter(([k]) => !(others && k === 'lock_id')).map(([k, v]) => [k, withoutOthersLockIds(v, agent)]),
  ) as T;
}

/** The same error with the lock ids of other agents' locks left out of its details (a lock_conflict's). */
export const errorWithoutOthersLockIds = (e: CoordError, agent: string): CoordError =>
  Object.keys(e.details).length === 0 ? e : new CoordError(e.code, e.message, withoutOthersLockIds(e.details, agent));
