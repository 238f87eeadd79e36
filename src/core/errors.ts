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
  'forbidden',
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
  'uncommitted_changes',
  'coord_busy',
  'too_large',
  'store_unavailable',
  'git_failed',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * What kind of failure each code is — the one table every edge derives its answer from (SPEC §4): the
 * HTTP status (server/http/errors.ts), the CLI exit code (cli/exit-codes.ts). `conflict` is the 409 list:
 * the caller lost a race or asked for a state the task is no longer in.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unavailable'
  | 'internal';

export const ERROR_KIND: Record<ErrorCode, ErrorKind> = {
  invalid_request: 'invalid',
  invalid_json: 'invalid',
  unauthorized: 'unauthorized',
  forbidden_host: 'forbidden',
  forbidden_origin: 'forbidden',
  forbidden: 'forbidden',
  not_found: 'not_found',
  claimed: 'conflict',
  not_claimable: 'conflict',
  not_claimed: 'conflict',
  stale_claim: 'conflict',
  lease_expired: 'conflict',
  cancelled: 'conflict',
  expired: 'conflict',
  result_mismatch: 'conflict',
  idempotency_conflict: 'conflict',
  artifact_conflict: 'conflict',
  lock_conflict: 'conflict',
  blocked: 'conflict',
  dependency_cycle: 'conflict',
  uncommitted_changes: 'conflict',
  coord_busy: 'conflict',
  too_large: 'too_large',
  store_unavailable: 'unavailable',
  git_failed: 'unavailable',
  internal: 'internal',
};

/** The kind of any code a client read off the wire; a code this version does not know is `internal`. */
export const kindOf = (code: string): ErrorKind => ERROR_KIND[code as ErrorCode] ?? 'internal';

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
