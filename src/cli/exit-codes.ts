/** The one map from error code to CLI exit code (SPEC §7). */
import type { ErrorCode } from '../core/errors.js';

export const EXIT = { ok: 0, usage: 1, conflict: 2, unreachable: 3 } as const;

const CONFLICTS: ReadonlySet<ErrorCode> = new Set([
  'claimed',
  'not_claimable',
  'not_claimed',
  'stale_claim',
  'lease_expired',
  'cancelled',
  'expired',
  'result_mismatch',
  'idempotency_conflict',
  'artifact_conflict',
  'lock_conflict',
  'blocked',
  'dependency_cycle',
]);

export function exitCodeFor(code: string): number {
  if (CONFLICTS.has(code as ErrorCode)) return EXIT.conflict;
  if (code === 'unreachable' || code === 'store_unavailable') return EXIT.unreachable;
  return EXIT.usage;
}
