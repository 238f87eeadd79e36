/**
 * The HTTP contract's URLs as plain strings, with nothing to load (no zod, no operations): the route table
 * (routes.ts) is written with them, and so are the light clients that must not load the table (the hooks,
 * the Claude push channel) and the server's own handlers (SSE, artifacts, the inbox lane, OpenAPI). No file
 * outside src/api/ writes a `/v1/…` URL (test/architecture/imports.test.ts reads every string).
 */
export const PATHS = {
  health: '/v1/health',
  openapi: '/v1/openapi.json',
  tasks: '/v1/tasks',
  inbox: '/v1/inbox',
  events: '/v1/events',
  agents: '/v1/agents',
  runs: '/v1/runs',
  locks: '/v1/locks',
  /** The one-round-trip edit decision (decide_edit, SPEC §10). */
  decideEdit: '/v1/locks/decide',
  messagesPending: '/v1/messages/pending',
  /** SPEC §19: what waits on a person; and an agent's client saying it waits (its notification hook). */
  attention: '/v1/attention',
  attentionWaiting: '/v1/attention/waiting',
  /**
   * A client's own `http` hook (Claude Code, Qwen Code: SPEC §10 "the client's cheapest hook"): the hook
   * input posted as the client sends it, answered in the client's hook JSON. `:event` is coord's name
   * (`pre-shell`, `post-shell`, `pre-edit`); it takes the hook key (`Authorization: Bearer <hook key>`).
   */
  hook: '/v1/hooks/:client/:event',
  /** PUT and GET one artifact's bytes (fastify's `:param` form). */
  artifact: '/v1/tasks/:id/artifacts/:artifact_id',
} as const;

const seg = encodeURIComponent;

/** `path` with `?query` when there is one. */
export const withQuery = (path: string, query: string): string =>
  query ? `${path}?${query.replace(/^\?/, '')}` : path;
export const taskPath = (taskId: string): string => `${PATHS.tasks}/${seg(taskId)}`;
export const artifactPath = (taskId: string, artifactId: string): string =>
  `${taskPath(taskId)}/artifacts/${seg(artifactId)}`;
export const hookPath = (client: string, event: string): string => `/v1/hooks/${seg(client)}/${seg(event)}`;

/** A daemon's hook routes at `origin` and its hook key: what a client's `http` hooks are given (SPEC §10). */
export const hookSite = (origin: string, key: string) => ({
  url: (client: string, event: string) => `${origin.replace(/\/+$/, '')}${hookPath(client, event)}`,
  key,
});
export const lockRenewPath = (lockId: string): string => `${PATHS.locks}/${seg(lockId)}/renew`;
