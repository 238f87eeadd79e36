/**
 * The HTTP face of the operations table: each route names an operation and
 * where its input comes from. Handlers parse, call, map errors — nothing more.
 * Route data only: nothing here loads an operation or zod.
 */
import type { OpName } from '../core/operations.js';
import { integrationRoutes } from './integration-routes.js';
import { messageRoutes } from './message-routes.js';
import { PATHS } from './paths.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  url: string;
  /**
   * The operation, by name: the table loads no operation (and so no zod), so a client that only sends
   * requests — the CLI — stays light (issue 26); the server looks the operation up (operationNamed).
   */
  op: OpName;
  /** Where the op's input comes from: path params are renamed (id → task_id), the rest from query or body. */
  from: 'body' | 'query';
  /** Path parameters, in the op's input names. */
  params?: Record<string, string>;
  /**
   * Success statuses, as data (SPEC §4), read by the server, the OpenAPI document and the client: `ok`
   * (200 unless named); `replay` for an answer with `created: false` (the same intent again); `empty`
   * for an answer of null, sent with no body.
   */
  status?: { ok?: 200 | 201; replay?: 200; empty?: 204 };
  /**
   * A second form of the answer besides the op's JSON, served by the route's own handler (server/http
   * inbox.ts, sse.ts): `query` asks for it; `json` asks for JSON when the other form is the default.
   */
  alsoAs?: { type: 'text/plain' | 'text/event-stream'; query?: Record<string, string>; json?: Record<string, string> };
  summary?: string;
}

/** The status a route answers `out` with. */
export function successStatus(route: Route, out: unknown): number {
  const s = route.status ?? {};
  if (out === null && s.empty) return s.empty;
  if (s.replay && (out as { created?: unknown } | null)?.created === false) return s.replay;
  return s.ok ?? 200;
}

/** Every success status a route can answer, first the usual one. */
export const successStatuses = (route: Route): number[] => [
  ...new Set([
    route.status?.ok ?? 200,
    ...(route.status?.replay ? [route.status.replay] : []),
    ...(route.status?.empty ? [route.status.empty] : []),
  ]),
];

/** The one route with no operation: liveness and version, answered without a token. */
export const HEALTH_URL = PATHS.health;

const ID = { id: 'task_id' };
const LOCK = { lock_id: 'lock_id' };

export const routes: Route[] = [
  {
    method: 'POST',
    url: '/v1/tasks',
    op: 'create_task',
    from: 'body',
    status: { ok: 201, replay: 200 },
  },
  { method: 'GET', url: '/v1/tasks', op: 'list_tasks', from: 'query' },
  { method: 'GET', url: '/v1/tasks/:id', op: 'show_task', from: 'query', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/claim', op: 'claim_task', from: 'body', params: ID },
  { method: 'POST', url: '/v1/claim', op: 'claim_next', from: 'body', status: { empty: 204 } },
  { method: 'POST', url: '/v1/tasks/:id/heartbeat', op: 'heartbeat', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/release', op: 'release_task', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/submit', op: 'submit_result', from: 'body', params: ID },
  { method: 'POST', url: '/v1/tasks/:id/cancel', op: 'cancel_task', from: 'body', params: ID },
  { method: 'GET', url: '/v1/agents', op: 'list_agents', from: 'query' },
  { method: 'GET', url: '/v1/runs', op: 'list_runs', from: 'query' },
  { method: 'POST', url: '/v1/runs', op: 'report_run', from: 'body' },
  { method: 'POST', url: '/v1/locks', op: 'lock_files', from: 'body', status: { ok: 201 } },
  { method: 'GET', url: '/v1/locks', op: 'list_locks', from: 'query' },
  { method: 'GET', url: '/v1/worktrees', op: 'list_worktrees', from: 'query' },
  { method: 'GET', url: '/v1/changes', op: 'list_changes', from: 'query' },
  { method: 'POST', url: '/v1/target', op: 'set_target', from: 'body' },
  { method: 'POST', url: '/v1/reserve/port', op: 'reserve_port', from: 'body', status: { ok: 201 } },
  { method: 'POST', url: PATHS.decideEdit, op: 'decide_edit', from: 'body' },
  { method: 'POST', url: '/v1/locks/:lock_id/renew', op: 'renew_lock', from: 'body', params: LOCK },
  { method: 'DELETE', url: '/v1/locks/:lock_id', op: 'unlock_files', from: 'query', params: LOCK },
  {
    method: 'GET',
    url: '/v1/inbox',
    op: 'inbox',
    from: 'query',
    alsoAs: { type: 'text/plain', query: { format: 'text' } },
    summary: 'Your inbox; ?format=text for the compact form a model reads.',
  },
  {
    method: 'GET',
    url: '/v1/events',
    op: 'list_events',
    from: 'query',
    alsoAs: { type: 'text/event-stream', json: { format: 'json' } },
    summary:
      'The event log as Server-Sent Events (id = seq, event = type); Last-Event-ID or ?since resumes right after that event. ?format=json (or Accept: application/json) answers one page of list_events instead.',
  },
  { method: 'POST', url: '/v1/tasks/:id/deps', op: 'set_deps', from: 'body', params: ID },
  {
    method: 'POST',
    url: '/v1/plans',
    op: 'post_plan',
    from: 'body',
    status: { ok: 201, replay: 200 },
  },
  ...messageRoutes,
  { method: 'POST', url: '/v1/connect', op: 'connect', from: 'body', status: { ok: 201 } },
  { method: 'GET', url: '/v1/connectors', op: 'list_connectors', from: 'query' },
  { method: 'POST', url: '/v1/connectors/:id/revoke', op: 'revoke_connector', from: 'body', params: { id: 'id' } },
  ...integrationRoutes,
  { method: 'GET', url: '/v1/tasks/:id/artifacts', op: 'list_artifacts', from: 'query', params: ID },
  { method: 'GET', url: PATHS.attention, op: 'list_attention', from: 'query' },
  { method: 'POST', url: PATHS.attentionWaiting, op: 'agent_waiting', from: 'body' },
];
