/**
 * The HTTP request for an operation, read off the route table (api/routes.ts): method, path with its
 * parameters filled in, and the rest of the input as the query or the JSON body. The CLI (and any other
 * client) names the operation; no client writes a `/v1/...` URL by hand.
 */
import type { z } from 'zod';
import { type Route, routes } from '../api/routes.js';
import type { Operation } from '../core/operation.js';
import type { OperationNamed, OpName } from '../core/operations.js';
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

/**
 * An operation named without loading it: a command that only sends a request (`coord inbox`) names
 * `{ name: 'inbox' }` and takes its types from `import type`, so it loads neither the operations nor zod.
 */
export interface OpRef<N extends OpName = OpName> {
  name: N;
}
/** What a client may name: the operation itself, or a reference to it. */
export type Callable = AnyOperation | OpRef;
type Resolved<C> = C extends { run: unknown } ? C : C extends OpRef<infer N> ? OperationNamed<N> : never;

/** The input a caller passes: the op's input before parsing (the daemon parses and defaults it). */
export type CallInput<C> = Resolved<C> extends Operation<infer I, unknown> ? z.input<I> : never;
/** What the op answers on the wire: its handler's result as JSON. */
export type CallOutput<C> = Resolved<C> extends Operation<z.ZodType, infer O> ? O : never;

export function routeOf(op: Callable): Route {
  const route = routes.find((r) => r.op === op.name);
  if (!route) throw new Error(`operation ${op.name} has no HTTP route`);
  return route;
}

export function requestFor(op: Callable, input: unknown, extraQuery: Record<string, string> = {}): RouteRequest {
  const route = routeOf(op);
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  let path = route.url;
  for (const [param, field] of Object.entries(route.params ?? {})) {
    path = path.replace(`:${param}`, encodeURIComponent(String(rest[field] ?? '')));
    delete rest[field];
  }
  if (route.from === 'body') return { method: route.method, path: path + query(extraQuery), body: rest };
  return { method: route.method, path: path + query({ ...rest, ...extraQuery }) };
}
