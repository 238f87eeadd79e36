/** The one map from error code to HTTP status, and the one error handler. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CoordError, ERROR_KIND, type ErrorCode, type ErrorKind, isCoordError } from '../../core/errors.js';

const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
  internal: 500,
};

/** The HTTP status of each error code, derived from its kind (core/errors.ts). */
export const STATUS = Object.fromEntries(
  Object.entries(ERROR_KIND).map(([code, kind]) => [code, STATUS_OF_KIND[kind]]),
) as Record<ErrorCode, number>;

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
