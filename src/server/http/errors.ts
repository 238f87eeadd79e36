/** The one map from error code to HTTP status, and the one error handler. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CoordError, type ErrorCode, isCoordError } from '../../core/errors.js';

export const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  not_found: 404,
  claimed: 409,
  not_claimable: 409,
  not_claimed: 409,
  stale_claim: 409,
  lease_expired: 409,
  cancelled: 409,
  expired: 409,
  result_mismatch: 409,
  idempotency_conflict: 409,
  artifact_conflict: 409,
  lock_conflict: 409,
  blocked: 409,
  dependency_cycle: 409,
  too_large: 413,
  store_unavailable: 503,
  internal: 500,
};

/** Fastify's own errors (body parsing, limits) become coord codes; anything unknown is `internal`. */
export function toCoordError(err: unknown): CoordError {
  if (isCoordError(err)) return err;
  const fe = err as Partial<FastifyError>;
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe.statusCode === 413) {
    return new CoordError(
      'too_large',
      'request body is too large (JSON bodies are limited to 1 MiB, artifacts to 16 MiB)',
    );
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new CoordError('invalid_json', 'request body is not valid JSON');
  }
  if (fe.code === 'FST_ERR_BAD_URL') {
    return new CoordError('invalid_request', 'the URL is not valid: a %-escape in its path is malformed', {
      issues: [{ path: '(url)', message: 'malformed %-escape' }],
    });
  }
  if (fe.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new CoordError('invalid_request', 'the URL is not valid: a path segment is longer than 100 characters', {
      issues: [{ path: '(url)', message: 'path segment longer than 100 characters' }],
    });
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new CoordError('invalid_request', 'unsupported Content-Type: send application/json', { issues: [] });
  }
  return new CoordError('internal', 'internal error — see the daemon log');
}

export function sendError(reply: FastifyReply, e: CoordError): FastifyReply {
  return reply.code(STATUS[e.code]).type('application/json').send({ error: e.toJSON() });
}

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const e = toCoordError(err);
  if (e.code === 'internal') req.log.error({ err }, 'unhandled error');
  return sendError(reply, e);
}
