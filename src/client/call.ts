/**
 * The HTTP request for an operation, read off the route table (api/routes.ts): method, path with its
 * parameters filled in, and the rest of the input as the query or the JSON body. The CLI (and any other
 * client) names the operation; no client writes a `/v1/...` URL by hand.
 */
import type { z } from 'zod';
import { type Route, routes } from '../api/routes.js';
import type { Operation } from '../core/operation.js';
import { query } from './query.js';

export { query };

export interface RouteRequest {
  method: Route['method'];
  /** Path and query, e.g. `/v1/tasks/abc/claim` or `/v1/tasks?board=x`. */
  path: string;
  /** The JSON body, for routes whose input travels in the body. */
  body?: Record<string, unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds every operation, whatever its input type
export type AnyOperation = Operation<any, unknown>;

/** The input a caller passes: the op's input before parsing (the daemon parses and defaults it). */
export type CallInput<Op> = Op extends Operation<infer I, unknown> ? z.input<I> : never;
/** What the op answers on the wire: its handler's result as JSON. */
export type CallOutput<Op> = Op extends Operation<z.ZodType, infer O> ? O : never;

export function routeOf(op: AnyOperation): Route {
  const route = routes.find((r) => r.op === op);
  if (!route) throw new Error(`operation ${op.name} has no HTTP route`);
  return route;
}

export function requestFor(op: AnyOperation, input: object, extraQuery: Record<string, string> = {}): RouteRequest {
  const route = routeOf(op);
  const rest: Record<string, unknown> = { ...input };
  let path = route.url;
  for (const [param, field] of Object.entries(route.params ?? {})) {
    path = path.replace(`:${param}`, encodeURIComponent(String(rest[field] ?? '')));
    delete rest[field];
  }
  if (route.from === 'body') return { method: route.method, path: path + query(extraQuery), body: rest };
  return { method: route.method, path: path + query({ ...rest, ...extraQuery }) };
}
