/**
 * The one error type of coord. Core code throws only CoordError with a stable
 * code from SPEC §4; each edge maps the code once (HTTP status, MCP isError
 * text, CLI exit code). Anything else that escapes is a bug and is shown as
 * `internal` without a stack trace.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_json',
  'unauthorized',
  'forbidden_host',
  'forbidden_origin',
  'not_found',
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
  'too_large',
  'store_unavailable',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class CoordError extends Error {
  override readonly name = 'CoordError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toJSON(): { code: ErrorCode; message: string } & Record<string, unknown> {
    return { ...this.details, code: this.code, message: this.message };
  }
}

export const isCoordError = (e: unknown): e is CoordError => e instanceof CoordError;
