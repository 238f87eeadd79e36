import type { FastifyRequest } from 'fastify';
import type { Route } from '../../api/routes.js';
import { CoordError } from '../../core/errors.js';

/** Builds the raw input of a route's operation from a request. */
export function rawInput(route: Route, req: FastifyRequest): Record<string, unknown> {
  const source = route.from === 'body' ? (req.body ?? {}) : req.query;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw new CoordError('invalid_request', 'the request body must be a JSON object', {
      issues: [{ path: '(body)', message: 'expected a JSON object' }],
    });
  }
  const raw: Record<string, unknown> = { ...source };
  const params = req.params as Record<string, string>;
  for (const [from, to] of Object.entries(route.params ?? {})) raw[to] = params[from];
  return raw;
}
